// The nn benchmark (see nn_bench.hpp).
#include "nn_bench.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/nn.hpp"
#include "harness.hpp"

namespace gpgpu::bench {

using json = nlohmann::json;

namespace {

// Multiply-adds x 2 of one training image: each Conv2D and Dense forward, weight gradient
// and (except for the first layer) input gradient.
double training_flops(const nn::Sequential& model) {
  double flops = 0;
  nn::Shape in = model.input_shape();
  for (std::size_t i = 0; i < model.layers().size(); ++i) {
    const nn::Shape out = model.shape_after(i);
    double forward = 0;
    if (const auto* c = std::get_if<nn::Conv2D>(&model.layers()[i])) {
      forward = 2.0 * static_cast<double>(out.size() * in[0] * c->kernel * c->kernel);
    } else if (std::holds_alternative<nn::Dense>(model.layers()[i])) {
      forward = 2.0 * static_cast<double>(in.size() * out.size());
    }
    flops += forward * (i == 0 ? 2 : 3);
    in = out;
  }
  return flops;
}

// The test set classified into `report`: every call's milliseconds, the median of the last
// o.inference_calls. The first call builds and tunes the programs of the inference batch:
// seconds of host work while the GPU idles and lowers its clocks (an H200's SM clock fell
// from 1980 to 930 MHz and took about 0.5 s of work to come back,
// docs/results/h200/2026-11-30-clock-ramp), so calls repeat for at least a second before the
// timed ones.
void time_inference(nn::Sequential& model, const nn::DeviceDataset& test, const NnBenchOptions& o,
                    json& report) {
  std::vector<double> ms;
  nn::Evaluation last;
  const auto call = [&] {
    last = nn::evaluate(model, test, o.inference_batch);
    ms.push_back(1e3 * last.seconds);
  };
  call();
  const auto warm_start = Clock::now();
  do {
    call();
  } while (ms_since(warm_start) < 1e3);
  report["inference_warmup_calls"] = ms.size() - 1;
  for (std::size_t r = 0; r < o.inference_calls; ++r) call();
  report["inference_ms"] = ms;
  report["inference_steady_ms"] =
      median({ms.end() - static_cast<std::ptrdiff_t>(o.inference_calls), ms.end()});
  report["inference_batch"] = o.inference_batch;
  report["test_accuracy_after_bench"] = last.accuracy();
}

// Wall time per ComputeKernel::run of a one-work-group kernel on a Buffer: the CPU cost of
// binding by name, setting uniforms and dispatching.
double dispatch_overhead_us(const Context& ctx) {
  ComputeKernel k(ctx, R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) buffer B { float b[]; };
    uniform float s;
    void main() { uint i = gpgpu_index(); if (i < gpgpu_count) b[i] = b[i] * s + 1.0; })",
                  {}, "dispatch overhead probe");
  Buffer b = Buffer::from(ctx, std::vector<float>(64, 1.0f));
  const int runs = 2000;
  const auto round = [&] {
    for (int i = 0; i < runs; ++i) k.run({{"b", b}, {"s", 0.5f}}, 64);
    ctx.finish();
  };
  return 1e3 * median_ms({.warmup = 1, .repeats = 1}, round) / runs;
}

// The epochs at one batch size, as the report's "train" entries hold them; steady: the median
// epoch after the first (a warm-up).
struct TrainTiming {
  std::size_t batch = 0, steps = 0;
  std::vector<double> epoch_seconds{};
  double steady_epoch_seconds = 0, images_per_second = 0, train_accuracy_last_epoch = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TrainTiming, batch, steps, epoch_seconds, steady_epoch_seconds,
                                   images_per_second, train_accuracy_last_epoch)

// o.epochs epochs of o.net's recipe at `batch` on `backend`; the trained model goes to
// *keep when given.
TrainTiming time_training(const Context& ctx, const NnBenchOptions& o, const nn::Dataset& train,
                          const nn::DeviceDataset& device_train, std::size_t batch,
                          nn::Backend backend, const nn::BackendOptions& backend_options,
                          nn::Sequential* keep) {
  auto recipe = nn::builtin_net(ctx, o.net, train.sample_shape(), train.classes);
  recipe.model.set_backend(backend, backend_options);
  recipe.model.set_normalization(nn::normalization_of(train));
  recipe.model.initialize(1);
  auto options = recipe.options;
  options.batch = batch;
  options.report_every = 1000000;  // one read of the accumulators, at the end of the epoch
  options.limit_steps = 0;
  nn::Trainer trainer(recipe.model, device_train, options);
  TrainTiming t{.batch = batch};
  for (std::size_t e = 0; e < o.epochs; ++e) {
    const auto r = trainer.run_epoch();
    t.epoch_seconds.push_back(r.seconds);
    t.steps = r.steps;
    t.train_accuracy_last_epoch = r.stats.accuracy();
    std::cerr << fmt::format(
        "  batch {:4}: epoch {} of {} steps in {:.3f} s (train accuracy {:.2f}%)\n", batch, e + 1,
        r.steps, r.seconds, 100 * r.stats.accuracy());
  }
  t.steady_epoch_seconds = median(
      {t.epoch_seconds.begin() + (t.epoch_seconds.size() > 1 ? 1 : 0), t.epoch_seconds.end()});
  t.images_per_second = static_cast<double>(t.steps * batch) / t.steady_epoch_seconds;
  if (keep != nullptr) *keep = std::move(recipe.model);
  return t;
}

// PyTorch's images/s for the same work as the Cpu backend's, as {train,
// inference}_images_per_second, or why there are none (a string).
json time_torch_cpu(const NnBenchOptions& o, const std::filesystem::path& data, std::size_t threads,
                    std::size_t test_images) {
  const auto script =
      o.torch_script.empty() ? std::filesystem::path(GPGPU_TORCH_CNN_SCRIPT) : o.torch_script;
  const auto out = std::filesystem::temp_directory_path() /
                   fmt::format("gpgpu-torch-cpu-{}-{}.json", ::getpid(), threads);
  const std::string command = fmt::format(
      "'{}' '{}' --device cpu --threads {} --batches 64 --epochs {} --train-limit {} "
      "--test-limit {} --inference-batch {} --data '{}' --out '{}' >&2",
      o.python, script.string(), threads, o.epochs, o.cpu_images, test_images,
      o.cpu_inference_batch, data.string(), out.string());
  if (std::system(command.c_str()) != 0) return "bench/nn/torch_cnn.py failed: " + command;
  const auto report = json::parse(std::ifstream(out));
  std::filesystem::remove(out);
  return {{"train_images_per_second", report.at("train").at(0).at("images_per_second")},
          {"inference_images_per_second", 1e3 * static_cast<double>(test_images) /
                                              report.at("inference_steady_ms").get<double>()}};
}

// The CPU section: the Cpu backend at each thread count, and PyTorch on the CPU at the same
// count, in the same run, when python3 imports torch; a JSON array, one entry per count.
json run_cpu_section(const Context& ctx, const NnBenchOptions& o, const std::filesystem::path& dir,
                     const nn::Dataset& full_train, const nn::DeviceDataset& device_test) {
  const auto train = full_train.first(o.cpu_images);
  nn::DeviceDataset device_train(ctx, train);
  const bool torch =
      o.torch &&
      std::system(fmt::format("'{}' -c 'import torch' >/dev/null 2>&1", o.python).c_str()) == 0;
  json section = json::array();
  Table table(
      "cpu",
      fmt::format("CPU backend ({}), {} training images (batch 64), {} test images "
                  "(batch {}){}",
                  nn::cpu_blas(), train.count, device_test.count(), o.cpu_inference_batch,
                  torch ? ", PyTorch in the same run" : " (PyTorch not importable here)"),
      {"threads", "train img/s", "torch train", "ratio", "infer img/s", "torch infer", "ratio"});
  std::vector<std::size_t> done;
  for (std::size_t requested : o.cpu_threads) {
    const std::size_t threads = requested == 0 ? nn::cpu_threads({}) : requested;
    if (std::find(done.begin(), done.end(), threads) != done.end()) continue;  // "all" = 2
    done.push_back(threads);
    nn::Sequential model(ctx, train.sample_shape());
    const auto g = time_training(ctx, o, train, device_train, 64, nn::Backend::Cpu,
                                 {.threads = threads}, &model);
    const double train_rate = g.images_per_second;
    const double infer_rate =
        static_cast<double>(device_test.count()) / median(sample({.warmup = 1, .repeats = 2}, [&] {
          return nn::evaluate(model, device_test, o.cpu_inference_batch).seconds;
        }));
    json row{{"threads", threads},
             {"gpgpu",
              {{"train_images_per_second", train_rate},
               {"inference_images_per_second", infer_rate},
               {"train_accuracy_last_epoch", g.train_accuracy_last_epoch}}}};
    const json p =
        torch ? time_torch_cpu(o, dir, threads, device_test.count()) : json("torch not importable");
    const bool ran = p.is_object();
    const double torch_train = ran ? p["train_images_per_second"].get<double>() : -1,
                 torch_infer = ran ? p["inference_images_per_second"].get<double>() : -1;
    row["torch"] = ran ? p : json(nullptr);
    if (ran) {
      row["ratio_train"] = train_rate / torch_train;
      row["ratio_inference"] = infer_rate / torch_infer;
    } else {
      row["torch_missing"] = p;
    }
    table.add({Cell(threads), Cell(train_rate, 0), Cell::positive(torch_train, 0),
               ratio(train_rate, torch_train), Cell(infer_rate, 0), Cell::positive(torch_infer, 0),
               ratio(infer_rate, torch_infer)});
    section.push_back(row);
  }
  table.print(std::cout);
  std::cout << std::flush;
  return section;
}

// The compute backend (and optionally transform feedback): epochs at each batch size,
// inference of the test set.
void run_gpu_section(const Context& ctx, const NnBenchOptions& o, const nn::Dataset& train,
                     const nn::DeviceDataset& device_train, const nn::DeviceDataset& device_test,
                     json& report) {
  const double overhead = dispatch_overhead_us(ctx);
  report["dispatch_overhead_us"] = overhead;
  std::cerr << fmt::format("dispatch overhead: {:.2f} us per ComputeKernel::run\n", overhead);
  // Steady state is the tuned speed: the warm-up epoch may tune every GEMM, without the
  // per-process budget that keeps a user's first run short (docs/startup.md).
  using Fusion = nn::BackendOptions::Fusion;
  const nn::BackendOptions tuned{
      .autotune_seconds = std::numeric_limits<double>::infinity(),
      .replay = o.replay,
      .fuse_pooling = o.fuse_pooling == "off"      ? Fusion::Off
                      : o.fuse_pooling == "kernel" ? Fusion::GradientKernel
                      : o.fuse_pooling == "loads"  ? Fusion::GradientInLoads
                                                   : Fusion::Auto};
  report["replay"] = o.replay;
  report["fuse_pooling"] = o.fuse_pooling;
  report["train"] = json::array();
  nn::Sequential last(ctx, train.sample_shape());
  for (std::size_t batch : o.batches) {
    report["train"].push_back(
        time_training(ctx, o, train, device_train, batch, nn::Backend::Compute, tuned, &last));
  }
  report["training_gflop_per_image"] = training_flops(last) / 1e9;
  time_inference(last, device_test, o, report);
  if (o.tf_images == 0) return;
  const auto tf_train = train.first(o.tf_images);
  nn::DeviceDataset device_tf(ctx, tf_train);
  NnBenchOptions tf_options = o;
  tf_options.epochs = 2;
  const auto t = time_training(ctx, tf_options, tf_train, device_tf, 64,
                               nn::Backend::TransformFeedback, {}, nullptr);
  const double images = static_cast<double>(t.steps * 64);
  const double tflops = training_flops(last) * t.images_per_second / 1e12;
  report["transform_feedback"] = {
      {"images", images},
      {"seconds", t.steady_epoch_seconds},
      {"extrapolated_epoch_seconds", t.steady_epoch_seconds * 60000.0 / images},
      {"tflops", tflops},
      {"ceiling_tflops", o.tf_ceiling_tflops},
      {"fraction_of_ceiling", tflops / o.tf_ceiling_tflops}};
}

}  // namespace

int run_nn_bench(const NnBenchOptions& o, const Context& ctx) {
  const auto dir = o.data.empty() ? nn::default_data_dir() : o.data;
  const auto full_train = nn::load_idx_dataset(dir, "train");
  const auto train = full_train.first(o.train_limit);
  const auto test = nn::load_idx_dataset(dir, "t10k").first(o.test_limit);
  nn::DeviceDataset device_test(ctx, test);
  json report{
      {"device", ctx.info().renderer}, {"gl", ctx.info().version},    {"net", o.net},
      {"data", dir.string()},          {"train_images", train.count}, {"test_images", test.count},
      {"epochs_per_batch", o.epochs}};
  std::cerr << fmt::format("device: {}\n", ctx.info().renderer);
  if (o.gpu) {
    nn::DeviceDataset device_train(ctx, train);
    run_gpu_section(ctx, o, train, device_train, device_test, report);
  }
  if (!o.cpu_threads.empty()) {
    report["cpu"] = run_cpu_section(ctx, o, dir, full_train, device_test);
    report["cpu_images"] = std::min(o.cpu_images, full_train.count);
    report["cpu_inference_batch"] = o.cpu_inference_batch;
    report["cpu_blas"] = nn::cpu_blas();
  }
  write_file(o.out / "nn" / "bench-nn.json", report.dump(2) + "\n");
  std::cout << report.dump(2) << "\n";
  return 0;
}

}  // namespace gpgpu::bench
