// `gpgpu bench matmul|memory`: the speed tests, on the device the user picks.
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"

#if GPGPU_HAVE_BENCH
#include "matmul_runner.hpp"
#include "memory_runner.hpp"
#endif
#if GPGPU_HAVE_NN_BENCH
#include "nn_bench.hpp"
#endif

namespace gpgpu::cli {

Command add_bench_command(CLI::App& app) {
  auto* sub = app.add_subcommand("bench",
                                 "Speed tests: matrix multiplication, memory access, CNN training");
  sub->require_subcommand(1);
  struct Options {
    std::string device = "auto";
    std::vector<int> sizes;
    std::vector<std::string> methods;
    std::string out_dir = "out/bench";
    int repeats = 5;
    int warmup = 1;
    bool no_charts = false;
    bool list = false;
    std::string which = "all";
    bool quick = false;
    std::string command_line;
  };
  auto o = std::make_shared<Options>();
  auto* matmul = sub->add_subcommand(
      "matmul",
      "C = A B at sizes 8..8192: every GL method, CPU loops, OpenBLAS, CUDA; GFLOPS, "
      "precision, JSON/CSV, PNG charts");
  matmul->add_option("--sizes", o->sizes, "square sizes n (default: fits the device)")
      ->delimiter(',');
  matmul->add_option("--methods", o->methods, "method names (default: all available; see --list)")
      ->delimiter(',');
  matmul->add_option("--repeats", o->repeats, "timed runs per point (median reported)");
  matmul->add_option("--warmup", o->warmup, "untimed runs per point first");
  matmul->add_flag("--no-charts", o->no_charts, "do not draw PNG charts");
  matmul->add_flag("--list", o->list, "list the method names and exit");
  auto* memory = sub->add_subcommand(
      "memory", "Transfers, element-wise bandwidth, transpose, SoA vs AoS, work-group sizes");
  memory->add_option("--which", o->which, "transfer, bandwidth, transpose, soa, workgroup or all");
  memory->add_flag("--quick", o->quick, "smallest sizes only (a smoke test)");
  // `gpgpu bench nn`: CNN epoch times at several batch sizes (bench/nn/nn_bench.hpp).
  struct NnOptions {
    std::string data, net = "cnn";
    std::vector<std::size_t> batches{64, 256};
    std::size_t epochs = 3, inference_batch = 10000, train_limit = 0, test_limit = 0, tf_images = 0;
  };
  auto n = std::make_shared<NnOptions>();
  auto* nn =
      sub->add_subcommand("nn",
                          "CNN training epoch times, test-set inference time, dispatch overhead "
                          "(compare with bench/nn/torch_cnn.py)");
  nn->add_option("--data", n->data, "IDX data directory (default: Fashion-MNIST)");
  nn->add_option("--net", n->net, "built-in network")->capture_default_str();
  nn->add_option("--batches", n->batches, "batch sizes")->delimiter(',');
  nn->add_option("--epochs", n->epochs, "epochs per batch size, the first a warm-up")
      ->capture_default_str();
  nn->add_option("--inference-batch", n->inference_batch, "batch size to classify the test set")
      ->capture_default_str();
  nn->add_option("--train-limit", n->train_limit, "train on the first N images only");
  nn->add_option("--test-limit", n->test_limit, "classify the first N test images only");
  nn->add_option("--tf-images", n->tf_images,
                 "also time the transform-feedback backend on N images");
  for (auto* s : {matmul, memory, nn}) {
    s->add_option("-d,--device", o->device, "auto, an index, or a word of the renderer");
    s->add_option("--out", o->out_dir, "directory for the JSON, CSV and PNG results");
  }
  return [o, n, matmul, memory, nn]() -> int {
    if (nn->parsed()) {
#if GPGPU_HAVE_NN_BENCH
      Context ctx({.device = o->device});
      bench::NnBenchOptions options;
      options.data = n->data;
      options.net = n->net;
      options.batches = n->batches;
      options.epochs = n->epochs;
      options.inference_batch = n->inference_batch;
      options.train_limit = n->train_limit;
      options.test_limit = n->test_limit;
      options.tf_images = n->tf_images;
      options.out = o->out_dir;
      return bench::run_nn_bench(options, ctx);
#else
      throw UnsupportedError(
          "this gpgpu was built without the nn benchmark (configure with -DGPGPU_BUILD_BENCH=ON)");
#endif
    }
#if GPGPU_HAVE_BENCH
    if (matmul->parsed() && o->list) {
      for (const auto& name : bench::list_matmul_bench_methods()) std::cout << name << "\n";
      return 0;
    }
    Context ctx({.device = o->device});
    std::cerr << "device: " << ctx.info().renderer << " (" << ctx.info().version << ")\n";
    if (matmul->parsed()) {
      bench::MatmulBenchOptions options;
      options.sizes = o->sizes;
      options.methods = o->methods;
      options.repeats = o->repeats;
      options.warmup = o->warmup;
      options.out_dir = std::filesystem::path(o->out_dir) / "matmul";
      options.charts = !o->no_charts;
      options.command_line = "gpgpu bench matmul";
      return bench::run_matmul_bench(options, ctx);
    }
    bench::MemoryBenchOptions options;
    options.which = o->which;
    options.quick = o->quick;
    options.out_dir = std::filesystem::path(o->out_dir) / "memory";
    return bench::run_memory_bench(options, ctx);
#else
    (void)matmul;
    (void)memory;
    throw UnsupportedError(
        "this gpgpu was built without the benchmarks (configure with -DGPGPU_BUILD_BENCH=ON)");
#endif
  };
}

}  // namespace gpgpu::cli
