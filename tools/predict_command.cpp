// `gpgpu predict MODEL IMAGES.npy | --data DIR`: classifies images with a saved model (gpgpu's
// own, or an .onnx file), prints the accuracy when labels are known, and writes the
// predictions.
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/nn.hpp"
#include "gpgpu/nn/onnx.hpp"
#include "gpgpu/npy.hpp"
#include "nn_backend_options.hpp"
#include "nn_plots.hpp"
#include "wall_times.hpp"

namespace gpgpu::cli {

namespace {

namespace fs = std::filesystem;

struct PredictCli {
  std::string device = "auto";
  std::string model;
  std::string images;
  std::string labels;
  std::string data;
  std::string split = "t10k";
  NnBackendChoice backend;
  std::string out = "out/predict";
  std::size_t batch = 1000, limit = 0;
  bool no_plots = false;
  bool autotune = false, no_autotune = false;
  std::vector<float> normalization;  // --normalization MEAN STD: overrides the model's
};

// IMAGES.npy as normalised float pixels: float32 in [0, 1] (as torchvision's ToTensor gives),
// or int32/uint32 in [0, 255]; shape (N, H, W) or (N, C, H, W) matching the model's input.
std::vector<float> read_images(const std::string& path, const nn::Sequential& model,
                               std::size_t* count) {
  const auto a = npy::load(path);
  const nn::Shape in = model.input_shape();
  const std::size_t per = in.size();
  const bool rank_ok =
      (a.shape.size() == 3 && in[0] == 1 && a.shape[1] == in[1] && a.shape[2] == in[2]) ||
      (a.shape.size() == 4 && nn::Shape({a.shape[1], a.shape[2], a.shape[3]}) == in);
  if (!rank_ok || a.shape[0] == 0) {
    throw FormatError(
        fmt::format("{}: the model takes images {} (as (N, H, W) for one channel or (N, C, H, W)); "
                    "the file holds {}",
                    path, in.to_string(), nn::Shape(a.shape).to_string()));
  }
  *count = a.shape[0];
  const auto norm = model.normalization();
  std::vector<float> x(*count * per);
  for (std::size_t i = 0; i < x.size(); ++i) {
    float v = 0;
    if (a.dtype == npy::DType::Float32) {
      v = a.view<float>()[i];
    } else if (a.dtype == npy::DType::Int32) {
      v = static_cast<float>(a.view<std::int32_t>()[i]) / 255.0f;
    } else {
      v = static_cast<float>(a.view<std::uint32_t>()[i]) / 255.0f;
    }
    x[i] = (v - norm.mean) / norm.stddev;
  }
  return x;
}

int predict_files(const PredictCli& o, const Context& ctx, nn::Sequential& model) {
  std::size_t count = 0;
  const auto x = read_images(o.images, model, &count);
  std::vector<int> predictions;
  const std::size_t per = model.input_shape().size();
  for (std::size_t first = 0; first < count; first += o.batch) {
    const std::size_t n = std::min(o.batch, count - first);
    const auto batch = nn::Tensor::from(ctx, model.input_shape().with_batch(n),
                                        std::span<const float>(x).subspan(first * per, n * per));
    const auto classes = model.classify(batch);
    predictions.insert(predictions.end(), classes.begin(), classes.end());
  }
  fs::create_directories(o.out);
  npy::save(fs::path(o.out) / "predictions.npy",
            npy::make<std::int32_t>(
                {count}, std::span<const std::int32_t>(predictions.data(), predictions.size())));
  std::cout << fmt::format("classified {} images; predictions in {}/predictions.npy\n", count,
                           o.out);
  if (!o.labels.empty()) {
    const auto l = npy::load(o.labels);
    if (l.element_count() != count || l.dtype == npy::DType::Float32) {
      throw FormatError(fmt::format("{}: expected {} integer labels; found {} {}", o.labels, count,
                                    l.element_count(), npy::dtype_name(l.dtype)));
    }
    std::size_t correct = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const long label =
          l.dtype == npy::DType::Int32 ? l.view<std::int32_t>()[i] : l.view<std::uint32_t>()[i];
      correct += label == predictions[i];
    }
    std::cout << fmt::format("accuracy {:.2f}% ({} of {})\n",
                             100.0 * static_cast<double>(correct) / static_cast<double>(count),
                             correct, count);
  }
  return 0;
}

int predict(const PredictCli& o) {
  WallTimes laps;
  const nn::Backend backend = nn::backend_from_name(o.backend.backend);
  Context ctx({.device = o.device});
  laps.lap("context");
  auto model = nn::load_any(ctx, o.model);
  laps.lap("model");
  model.set_backend(backend,
                    {.autotune = o.autotune && !o.no_autotune, .threads = o.backend.threads});
  if (!o.normalization.empty()) {
    model.set_normalization({o.normalization[0], o.normalization[1]});
  }
  print_backend_hint(model);
  std::cout << fmt::format("device: {}, backend {}\nmodel: {} ({} parameters)\n",
                           ctx.info().renderer, backend_description(model), o.model,
                           model.parameter_count());
  if (!o.images.empty() == !o.data.empty())
    throw ArgumentError("give either IMAGES.npy or --data DIR");
  if (!o.images.empty()) return predict_files(o, ctx, model);
  const auto test = nn::load_idx_dataset(o.data, o.split).first(o.limit);
  nn::DeviceDataset device_test(ctx, test);
  laps.lap("data");
  const auto e = nn::evaluate(model, device_test, o.batch);
  laps.lap("classifying");
  fs::create_directories(o.out);
  const auto names =
      model.class_names().empty() ? class_names_for(o.data, e.classes) : model.class_names();
  write_evaluation(o.out, e, device_test.labels(), names);
  std::cout << fmt::format(
      "{} images of {}: accuracy {:.2f}% ({} of {}), loss {:.4f}, {:.3f} s to classify\n",
      test.count, o.data, 100 * e.accuracy(), static_cast<std::size_t>(e.stats.correct),
      e.stats.count, e.stats.mean_loss(), e.seconds);
  std::cout << fmt::format("predictions.csv and confusion.csv in {}\n", o.out);
  laps.lap("saving");
  if (!o.no_plots) std::cout << draw_plots(o.out, nullptr, e, test, names) << "\n";
  if (!o.no_plots) laps.lap("plots");
  std::cout << laps.to_string();
  return 0;
}

}  // namespace

Command add_predict_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "predict", "Classify images with a model saved by `gpgpu train` or an ONNX file");
  auto o = std::make_shared<PredictCli>();
  sub->add_option("model", o->model,
                  "the model: a directory or .npz saved by gpgpu train, or an .onnx file")
      ->required();
  sub->add_option("images", o->images,
                  "IMAGES.npy: (N, H, W) or (N, C, H, W), float32 in [0, 1] or int 0..255");
  sub->add_option("--labels", o->labels, "LABELS.npy (int32) to report the accuracy of IMAGES.npy");
  sub->add_option("--data", o->data, "or a directory of IDX files to evaluate");
  sub->add_option("--split", o->split, "which IDX split with --data: t10k or train")
      ->capture_default_str();
  sub->add_option("--limit", o->limit, "only the first N images of --data");
  sub->add_option("--batch", o->batch, "images per batch")->capture_default_str();
  sub->add_option("--normalization", o->normalization,
                  "MEAN STD: pixels in [0, 1] go in as (p - MEAN) / STD (default: the model's; "
                  "an ONNX file from PyTorch carries none)")
      ->expected(2);
  add_backend_options(*sub, o->backend);
  sub->add_option("--out", o->out, "directory for predictions, confusion matrix and plots")
      ->capture_default_str();
  sub->add_flag("--no-plots", o->no_plots, "do not run gnuplot");
  // Classifying a few images is over before tuning would pay for itself: predict takes the
  // tilings `gpgpu train` tuned (disk cache) or the cost model's, unless asked to tune.
  sub->add_flag("--autotune", o->autotune,
                "time GEMM tilings on GPUs before classifying (pays off for large image sets)");
  sub->add_flag("--no-autotune", o->no_autotune,
                "the default: tilings tuned earlier (disk cache) or the cost model's");
  sub->add_option("-d,--device", o->device, "auto, an index, or a word of the renderer");
  return [o]() -> int { return predict(*o); };
}

}  // namespace gpgpu::cli
