// The nn benchmark (see nn_bench.hpp).
#include "nn_bench.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/nn.hpp"
#include "nn_bench_internal.hpp"

namespace gpgpu::bench {

namespace {

namespace nn = gpgpu::nn;
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
  for (int i = 0; i < 50; ++i) k.run({{"b", b}, {"s", 0.5f}}, 64);
  ctx.finish();
  const int runs = 2000;
  const auto start = Clock::now();
  for (int i = 0; i < runs; ++i) k.run({{"b", b}, {"s", 0.5f}}, 64);
  ctx.finish();
  return 1e3 * ms_since(start) / runs;
}

}  // namespace

TrainTiming time_training(const Context& ctx, const NnBenchOptions& o, const nn::Dataset& train,
                          const nn::DeviceDataset& device_train, std::size_t batch,
                          nn::Backend backend, const nn::BackendOptions& backend_options,
                          std::size_t limit_steps, nn::Sequential* keep) {
  auto recipe = nn::builtin_net(ctx, o.net, train.sample_shape(), train.classes);
  recipe.model.set_backend(backend, backend_options);
  recipe.model.set_normalization(nn::normalization_of(train));
  recipe.model.initialize(1);
  auto options = recipe.options;
  options.batch = batch;
  options.report_every = 1000000;  // one read of the accumulators, at the end of the epoch
  options.limit_steps = limit_steps;
  nn::Trainer trainer(recipe.model, device_train, options);
  TrainTiming t;
  t.batch = batch;
  for (std::size_t e = 0; e < o.epochs; ++e) {
    const auto r = trainer.run_epoch();
    t.epoch_seconds.push_back(r.seconds);
    t.steps = r.steps;
    t.train_accuracy = r.stats.accuracy();
    std::cerr << fmt::format(
        "  batch {:4}: epoch {} of {} steps in {:.3f} s (train accuracy {:.2f}%)\n", batch, e + 1,
        r.steps, r.seconds, 100 * r.stats.accuracy());
  }
  t.steady = median(std::vector<double>(
      t.epoch_seconds.begin() + (t.epoch_seconds.size() > 1 ? 1 : 0), t.epoch_seconds.end()));
  if (keep != nullptr) *keep = std::move(recipe.model);
  return t;
}

namespace {

// The compute backend (and optionally transform feedback): epochs at each batch size,
// inference of the test set.
void run_gpu_section(const Context& ctx, const NnBenchOptions& o, const nn::Dataset& train,
                     const nn::DeviceDataset& device_train, const nn::DeviceDataset& device_test,
                     json& report) {
  const double overhead = dispatch_overhead_us(ctx);
  report["dispatch_overhead_us"] = overhead;
  std::cerr << fmt::format("dispatch overhead: {:.2f} us per ComputeKernel::run\n", overhead);
  nn::Sequential last(ctx, train.sample_shape());
  report["train"] = json::array();
  // Steady state is the tuned speed: the warm-up epoch may tune every GEMM, without the
  // per-process budget that keeps a user's first run short (docs/startup.md).
  nn::BackendOptions tuned;
  tuned.autotune_seconds = std::numeric_limits<double>::infinity();
  tuned.replay = o.replay;
  report["replay"] = o.replay;
  using Fusion = nn::BackendOptions::Fusion;
  tuned.fuse_pooling = o.fuse_pooling == "off"      ? Fusion::Off
                       : o.fuse_pooling == "kernel" ? Fusion::GradientKernel
                       : o.fuse_pooling == "loads"  ? Fusion::GradientInLoads
                                                    : Fusion::Auto;
  report["fuse_pooling"] = o.fuse_pooling;
  for (std::size_t batch : o.batches) {
    const auto t =
        time_training(ctx, o, train, device_train, batch, nn::Backend::Compute, tuned, 0, &last);
    report["train"].push_back(
        {{"batch", batch},
         {"steps", t.steps},
         {"epoch_seconds", t.epoch_seconds},
         {"steady_epoch_seconds", t.steady},
         {"images_per_second", static_cast<double>(t.steps * batch) / t.steady},
         {"train_accuracy_last_epoch", t.train_accuracy}});
  }
  report["training_gflop_per_image"] = training_flops(last) / 1e9;
  std::vector<double> inference;
  nn::Evaluation eval;
  for (int r = 0; r < 4; ++r) {
    eval = nn::evaluate(last, device_test, o.inference_batch);
    inference.push_back(1e3 * eval.seconds);
  }
  report["inference_ms"] = inference;
  report["inference_steady_ms"] =
      median(std::vector<double>(inference.begin() + 1, inference.end()));
  report["inference_batch"] = o.inference_batch;
  report["test_accuracy_after_bench"] = eval.accuracy();
  if (o.tf_images > 0) {
    const auto tf_train = train.first(o.tf_images);
    nn::DeviceDataset device_tf(ctx, tf_train);
    NnBenchOptions tf_options = o;
    tf_options.epochs = 2;
    const auto t = time_training(ctx, tf_options, tf_train, device_tf, 64,
                                 nn::Backend::TransformFeedback, {}, 0, nullptr);
    const double images = static_cast<double>(t.steps * 64);
    const double tflops = training_flops(last) * images / t.steady / 1e12;
    report["transform_feedback"] = {{"images", images},
                                    {"seconds", t.steady},
                                    {"extrapolated_epoch_seconds", t.steady * 60000.0 / images},
                                    {"tflops", tflops},
                                    {"ceiling_tflops", o.tf_ceiling_tflops},
                                    {"fraction_of_ceiling", tflops / o.tf_ceiling_tflops}};
  }
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
