// `gpgpu train`: trains a network on an IDX data set (Fashion-MNIST by default) on the GPU
// (or llvmpipe), with a progress bar, a line per epoch, and in --out the model, history.json,
// the confusion matrix, predictions and PNG plots. Under gpgpu-mpi the ranks train one model
// together (gpgpu/nn/team.hpp): each its shard of every global batch, each its part of the
// test set; rank 0 prints and writes the files.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <iostream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/nn.hpp"
#include "nn_backend_options.hpp"
#include "nn_plots.hpp"
#include "timeline_file.hpp"
#include "train_command.hpp"
#include "wall_times.hpp"

namespace gpgpu::cli {

namespace {

// --autotune-seconds: a number of seconds >= 0, or inf.
double tuning_budget(const std::string& text) {
  if (text == "inf") return std::numeric_limits<double>::infinity();
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(seconds) || seconds < 0) {
    throw ArgumentError(
        fmt::format("--autotune-seconds must be a number of seconds >= 0, or inf; got '{}'", text));
  }
  return seconds;
}

namespace fs = std::filesystem;

struct TrainCli {
  std::string device = "auto";
  std::string data;
  std::string net = "small";
  NnBackendChoice backend;
  std::string optimizer;
  std::string schedule;
  std::string out = "out/train";
  std::optional<std::size_t> epochs, batch;
  std::optional<float> lr, momentum, weight_decay;
  std::size_t train_limit = 0, test_limit = 0, eval_batch = 1000, report_every = 0;
  std::uint64_t seed = 1;
  bool augment = false, no_augment = false, no_plots = false, quiet = false;
  bool no_autotune = false;
  std::string autotune_seconds = "1";
  double autotune_budget = 1;  // autotune_seconds, checked before any data is read
  int shift = 2;
  TimelineRequest timeline;
  std::string command_line;
};

// The network and its recipe, with the command line's overrides.
nn::NetRecipe make_recipe(const Context& ctx, const TrainCli& o, const nn::Dataset& train) {
  nn::NetRecipe recipe{nn::Sequential(ctx, train.sample_shape()), {}};
  if (fs::path(o.net).extension() == ".json") {
    recipe.model = nn::load_architecture(ctx, o.net);
  } else {
    recipe = nn::builtin_net(ctx, o.net, train.sample_shape(), train.classes);
  }
  auto& t = recipe.options;
  if (o.optimizer == "sgd") t.optimizer = nn::SGD{.learning_rate = nn::learning_rate(t.optimizer)};
  if (o.optimizer == "adam")
    t.optimizer = nn::Adam{.learning_rate = nn::learning_rate(t.optimizer)};
  if (!o.optimizer.empty() && o.optimizer != "sgd" && o.optimizer != "adam") {
    throw ArgumentError(fmt::format("--optimizer must be sgd or adam; got {}", o.optimizer));
  }
  if (o.lr) t.optimizer = nn::with_learning_rate(t.optimizer, *o.lr);
  if (auto* sgd = std::get_if<nn::SGD>(&t.optimizer)) {
    if (o.momentum) sgd->momentum = *o.momentum;
    if (o.weight_decay) sgd->weight_decay = *o.weight_decay;
  } else if (o.weight_decay) {
    std::get<nn::Adam>(t.optimizer).weight_decay = *o.weight_decay;
  }
  if (!o.schedule.empty()) {
    const auto s = nn::parse_schedule(o.schedule);
    if (!s)
      throw ArgumentError(
          fmt::format("--schedule must be constant, cosine or step; got {}", o.schedule));
    t.schedule = *s;
  }
  if (o.epochs) t.epochs = *o.epochs;
  if (o.batch) t.batch = *o.batch;
  if (o.augment) t.augmentation = {.flip = true, .shift = o.shift};
  if (o.no_augment) t.augmentation = {};
  t.seed = o.seed;
  return recipe;
}

void print_progress(const nn::Progress& p, std::size_t epochs) {
  std::fprintf(stderr, "\r%s", nn::progress_line(p, epochs).c_str());
  std::fflush(stderr);
}

std::vector<int> labels_of(const nn::Dataset& data) {
  return {data.labels.begin(), data.labels.end()};
}

int train(const TrainCli& o, nn::Team& team) {
  WallTimes laps;
  const nn::Backend backend = nn::backend_from_name(o.backend.backend);
  Context ctx({.device = team.device(o.device)});
  laps.lap("context");
  const bool lead = team.rank() == 0;  // prints and writes
  std::ostringstream muted;
  std::ostream& out = lead ? std::cout : muted;
  const fs::path data_dir = o.data.empty() ? nn::default_data_dir() : fs::path(o.data);
  const auto read_start = std::chrono::steady_clock::now();
  // The two files are inflated at once (each ~0.2 s of zlib on one core for Fashion-MNIST).
  auto test_read =
      std::async(std::launch::async, [&] { return nn::load_idx_dataset(data_dir, "t10k"); });
  const auto full_train = nn::load_idx_dataset(data_dir, "train");
  const auto train_set = full_train.first(o.train_limit);
  const auto test_set = test_read.get().first(o.test_limit);
  const auto test_part = nn::shard_of(test_set.count, team.rank(), team.size());
  if (test_part.count == 0) {
    throw ArgumentError(
        fmt::format("{} test images cannot be split over {} ranks", test_set.count, team.size()));
  }
  const double read_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - read_start).count();
  laps.lap("data read");
  auto recipe = make_recipe(ctx, o, train_set);
  auto& model = recipe.model;
  model.set_backend(backend, {.autotune = !o.no_autotune,
                              .threads = o.backend.threads,
                              .autotune_seconds = o.autotune_budget});
  if (lead) print_backend_hint(model);
  model.set_normalization(nn::normalization_of(full_train));
  const auto names = class_names_for(data_dir, std::max(train_set.classes, test_set.classes));
  model.set_class_names(names);
  model.initialize(o.seed);
  auto& t = recipe.options;
  const std::size_t steps = train_set.count / std::max<std::size_t>(t.batch, 1);
  t.report_every = o.report_every ? o.report_every : std::max<std::size_t>(1, steps / 50);
  team.join(model, t);
  // Five marks a step (TrainOptions::timeline); steps count on across epochs.
  const auto gpu_timeline = make_timeline(o.timeline, ctx, 5);
  t.timeline = gpu_timeline.get();
  const double share =
      static_cast<double>(t.shard.count ? t.shard.count : t.batch) / static_cast<double>(t.batch);

  out << fmt::format("device: {} ({})\n", ctx.info().renderer, ctx.info().version);
  if (team.size() > 1) {
    out << fmt::format("ranks: {}, each a shard of every global batch of {} (rank 0: {})\n",
                       team.size(), t.batch, t.shard.count);
  }
  out << fmt::format("data: {} train, {} test images of {} from {} (read in {:.2f} s)\n",
                     train_set.count, test_set.count, train_set.sample_shape().to_string(),
                     data_dir.string(), read_seconds);
  out << fmt::format("net: {}, backend {}, {}, batch {}, {} epochs, schedule {}{}\n", o.net,
                     backend_description(model), nn::describe(t.optimizer), t.batch, t.epochs,
                     nn::to_string(t.schedule),
                     t.augmentation.enabled()
                         ? fmt::format(", augmentation flip + shift {}", t.augmentation.shift)
                         : "");
  out << model.summary() << std::flush;

  laps.lap("model");
  const auto upload_start = std::chrono::steady_clock::now();
  nn::DeviceDataset device_train(ctx, train_set);
  nn::DeviceDataset device_test(ctx, nn::part_of(test_set, test_part.first, test_part.count));
  nn::Trainer trainer(model, device_train, t);
  out << fmt::format(
      "data uploaded and kernels built in {:.2f} s\n",
      std::chrono::duration<double>(std::chrono::steady_clock::now() - upload_start).count());
  laps.lap("data upload and kernels");

  TrainHistory history{o.net,
                       ctx.info().renderer,
                       backend_description(model),
                       data_dir.string(),
                       nn::describe(t.optimizer),
                       o.command_line,
                       t.batch,
                       train_set.count,
                       test_set.count,
                       model.parameter_count(),
                       {},
                       {}};
  const bool bar = lead && !o.quiet && ::isatty(STDERR_FILENO);
  nn::Evaluation eval;
  for (std::size_t e = 0; e < t.epochs; ++e) {
    const auto result = nn::combine(team, trainer.run_epoch([&](const nn::Progress& local) {
      const nn::Progress p = nn::combine(team, local, share);
      history.interval_losses.emplace_back(
          static_cast<double>(e) + static_cast<double>(p.step) / static_cast<double>(p.steps),
          p.loss);
      if (bar) print_progress(p, t.epochs);
    }));
    if (bar) std::fprintf(stderr, "\r%*s\r", 100, "");
    eval = nn::evaluate(team, model, device_test, o.eval_batch);
    EpochRecord r{e,
                  result.stats.mean_loss(),
                  result.stats.accuracy(),
                  eval.stats.mean_loss(),
                  eval.accuracy(),
                  result.seconds,
                  static_cast<double>(result.steps * t.batch) / result.seconds,
                  result.learning_rate,
                  eval.seconds};
    history.epochs.push_back(r);
    out << fmt::format(
               "epoch {:>3}/{}  train loss {:.4f}  train acc {:6.2f}%  test loss {:.4f}  "
               "test acc {:6.2f}%  "
               "lr {:.3g}  {:.2f} s ({:.0f} img/s)  eval {:.3f} s\n",
               e + 1, t.epochs, r.train_loss, 100 * r.train_accuracy, r.test_loss,
               100 * r.test_accuracy, r.learning_rate, r.seconds, r.images_per_second,
               r.eval_seconds)
        << std::flush;
  }
  if (t.epochs == 0) eval = nn::evaluate(team, model, device_test, o.eval_batch);
  laps.lap("epochs and evaluations");
  if (gpu_timeline) out << write_timeline(o.timeline, team.rank(), team.size(), *gpu_timeline);
  if (const auto line = team.timing(); !line.empty()) std::cerr << line + "\n" << std::flush;
  if (!lead) return 0;
  fs::create_directories(o.out);
  nn::save_model(model, fs::path(o.out) / "model");
  write_history(o.out, history);
  write_evaluation(o.out, eval, labels_of(test_set), names);
  out << fmt::format("test accuracy {:.2f}% ({} of {})\n", 100 * eval.accuracy(),
                     static_cast<std::size_t>(eval.stats.correct), eval.stats.count);
  out << fmt::format("saved {}/model, history.json, confusion.csv, predictions.csv\n", o.out);
  const auto programs = ctx.program_counts();
  out << fmt::format(
      "programs: {} compiled ({:.2f} s), {} restored from the disk cache ({:.2f} s)\n",
      programs.compiled, programs.compile_seconds, programs.restored, programs.restore_seconds);
  laps.lap("saving");
  if (!o.no_plots) out << draw_plots(o.out, &history, eval, test_set, names) << "\n";
  if (!o.no_plots) laps.lap("plots");
  out << laps.to_string();
  return 0;
}

}  // namespace

Command add_train_command(CLI::App& app) {
  return add_train_command(app, [] { return nn::one_process(); });
}

Command add_train_command(CLI::App& app, TrainTeamMaker make_team) {
  auto* sub = app.add_subcommand(
      "train", "Train a convolutional network on GPU shaders (Fashion-MNIST by default)");
  auto o = std::make_shared<TrainCli>();
  sub->add_option(
      "--data", o->data,
      "directory of MNIST-format IDX files (default: Fashion-MNIST, or $GPGPU_NN_DATA)");
  sub->add_option("--net", o->net, "small, lenet, cnn, cnn-bn, gpgpujs, or a network FILE.json")
      ->capture_default_str();
  sub->add_option("--epochs", o->epochs, "epochs (default: the net's recipe)");
  sub->add_option("--batch", o->batch, "batch size (default: the net's recipe)");
  sub->add_option("--lr", o->lr, "learning rate (default: the net's recipe)");
  sub->add_option("--optimizer", o->optimizer, "sgd or adam (default: the net's recipe)");
  sub->add_option("--momentum", o->momentum, "SGD momentum");
  sub->add_option("--weight-decay", o->weight_decay, "weight decay");
  sub->add_option("--schedule", o->schedule, "learning-rate schedule: constant, cosine or step");
  sub->add_flag("--augment", o->augment,
                "random horizontal flips and shifts of the training images");
  sub->add_option("--shift", o->shift, "largest shift in pixels with --augment")
      ->capture_default_str();
  sub->add_flag("--no-augment", o->no_augment, "no augmentation, even if the recipe has it");
  add_backend_options(*sub, o->backend);
  sub->add_option("--out", o->out, "directory for the model, history, plots")
      ->capture_default_str();
  sub->add_option("--seed", o->seed, "seed of initialisation, shuffling, dropout, augmentation")
      ->capture_default_str();
  sub->add_option("--train-limit", o->train_limit, "train on the first N images only (0: all)");
  sub->add_option("--test-limit", o->test_limit, "test on the first N images only (0: all)");
  sub->add_option("--eval-batch", o->eval_batch, "batch size for evaluation")
      ->capture_default_str();
  sub->add_option("--report-every", o->report_every,
                  "steps between loss reads (default: 50 per epoch)");
  sub->add_flag("--no-plots", o->no_plots, "do not run gnuplot");
  sub->add_flag(
      "--no-autotune", o->no_autotune,
      "no GEMM autotuning on GPUs: tilings tuned earlier (disk cache) or the cost model's");
  sub->add_option("--autotune-seconds", o->autotune_seconds,
                  "wall seconds this process may spend tuning GEMMs on a GPU (default 1; inf: "
                  "tune every GEMM not tuned yet, as a benchmark's warm-up does)");
  sub->add_flag("-q,--quiet", o->quiet, "no progress bar");
  sub->add_option("-d,--device", o->device, "auto, an index, or a word of the renderer");
  add_timeline_options(*sub, o->timeline);
  return [o, make_team]() -> int {
    check_timeline_request(o->timeline, "train");
    o->autotune_budget = tuning_budget(o->autotune_seconds);  // refused before any data is read
    o->command_line = "gpgpu train";
    const auto team = make_team();
    return train(*o, *team);
  };
}

}  // namespace gpgpu::cli
