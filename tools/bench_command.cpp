// `gpgpu bench matmul|memory`: the speed tests, on the device the user picks.
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"

#if GPGPU_HAVE_BENCH
#include "datapath_runner.hpp"
#include "matmul_runner.hpp"
#include "memory_runner.hpp"
#endif
#if GPGPU_HAVE_PRIMITIVES_BENCH
#include "primitives_runner.hpp"
#endif
#if GPGPU_HAVE_NN_BENCH
#include "nn_bench.hpp"
#endif
#if GPGPU_HAVE_GRID_BENCH
#include "grid_bench.hpp"
#endif
#if GPGPU_HAVE_STARTUP_BENCH
#include "startup_bench.hpp"
#endif
#if GPGPU_HAVE_DISPATCH_BENCH
#include "dispatch_bench.hpp"
#endif

namespace gpgpu::cli {

namespace {

// `gpgpu bench grid`'s options as the command line gives them (bench/grid/grid_bench.hpp).
// `gpgpu bench dispatch`'s options (bench/dispatch/dispatch_bench.hpp).
struct DispatchCli {
  int chain = 256, rounds = 21, warmup = 3;
  bool no_cuda = false;
};

// `gpgpu bench memory`'s timing and sizes (bench/memory_runner.hpp; 0: the device's default).
struct MemoryCli {
  int repeats = 7, warmup = 2;
  std::size_t transfer_max = 0, floats = 0, transpose_n = 0, particles = 0;
};

struct GridBenchOptionsHolder {
  std::vector<int> levels{4, 5, 6, 7};
  int repeats = 3, cpu_max_level = 9;
  bool no_gpu = false, verbose = false;
};

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto* sub = app.add_subcommand("bench",
                                 "Speed tests: matrix multiplication, memory access, the data "
                                 "path, stage ceilings, parallel primitives, CNN training, "
                                 "start-up times, dispatch costs");
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
    std::vector<int> saxpy_log2;
    std::size_t pipeline_mib = 0;
    bool no_cuda = false;
    std::vector<int> log2_sizes;
    std::vector<std::string> primitives;
    bool sweep = false;
    std::string paths = "auto";
    std::string tuning;
    bool no_cpu = false;
    double max_seconds = 5;
    int primitive_repeats = 10;
    double max_point_seconds = 4, max_run_seconds = 10;
    int full_check_max_n = 512;
    std::uint32_t seed = 0;
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
  matmul
      ->add_option("--max-point-seconds", o->max_point_seconds,
                   "stop repeating a point after this long")
      ->capture_default_str();
  matmul
      ->add_option("--max-run-seconds", o->max_run_seconds,
                   "skip sizes where one run is predicted to take longer")
      ->capture_default_str();
  matmul
      ->add_option("--full-check-max-n", o->full_check_max_n,
                   "check every entry up to this n, sample above")
      ->capture_default_str();
  matmul->add_option("--seed", o->seed, "input data seed (0: random)");
  auto* memory = sub->add_subcommand(
      "memory", "Transfers, element-wise bandwidth, transpose, SoA vs AoS, work-group sizes");
  memory->add_option("--which", o->which, "transfer, bandwidth, transpose, soa, workgroup or all");
  memory->add_flag("--quick", o->quick, "smallest sizes only (a smoke test)");
  auto mem = std::make_shared<MemoryCli>();
  memory->add_option("--repeats", mem->repeats, "timed runs per point (median reported)")
      ->capture_default_str();
  memory->add_option("--warmup", mem->warmup, "untimed runs per point first")
      ->capture_default_str();
  memory->add_option("--transfer-max", mem->transfer_max, "largest transfer in bytes");
  memory->add_option("--floats", mem->floats, "floats per array of the bandwidth kernels");
  memory->add_option("--transpose-n", mem->transpose_n, "side of the transposed matrices");
  memory->add_option("--particles", mem->particles, "particles of the soa benchmark");
  memory->add_flag("--no-cuda", o->no_cuda, "do not compare with CUDA");
  auto* datapath = sub->add_subcommand(
      "datapath",
      "Host arrays to the GPU and back: SAXPY round trips, chunked pipelines, matmul end to end; "
      "vs CUDA (pageable and pinned) and OpenBLAS");
  datapath->add_option("--which", o->which, "saxpy, pipeline, matmul, variants or all");
  datapath->add_option("--sizes", o->sizes, "matmul sizes n")->delimiter(',');
  datapath->add_option("--saxpy-log2", o->saxpy_log2, "SAXPY sizes as powers of two")
      ->delimiter(',');
  datapath->add_option("--pipeline-mib", o->pipeline_mib, "MiB through the pipeline");
  datapath->add_option("--repeats", o->repeats, "timed runs per point (median reported)");
  datapath->add_option("--warmup", o->warmup, "untimed runs per point first");
  datapath->add_flag("--quick", o->quick, "smallest sizes only (a smoke test)");
  datapath->add_flag("--no-cuda", o->no_cuda, "do not compare with CUDA");
  auto* ceiling = sub->add_subcommand(
      "ceiling", "ALU and texel-fetch ceilings of the compute, vertex and fragment stages");
  ceiling->add_flag("--quick", o->quick, "small sizes (a smoke test)");
  auto* primitives = sub->add_subcommand(
      "primitives",
      "reduce, scan, radix sort, histogram at 2^10..2^28 against CUB, the CUDA copy and the "
      "parallel CPU algorithms; every result checked; tables, JSON/CSV, PNG charts");
  primitives
      ->add_option("--log2-sizes", o->log2_sizes,
                   "sizes as powers of two (default 10,12,...,24,26,27,28)")
      ->delimiter(',')
      ->check(CLI::Range(1, 31));
  primitives
      ->add_option("--primitives", o->primitives, "reduce, scan, sort, sort_pairs, histogram, copy")
      ->delimiter(',')
      ->check(CLI::IsMember({"reduce", "scan", "sort", "sort_pairs", "histogram", "copy"}));
  primitives
      ->add_option("--repeats", o->primitive_repeats, "timed runs per point (median reported)")
      ->check(CLI::Range(1, 1000));
  primitives->add_option("--warmup", o->warmup, "untimed runs per point first")
      ->check(CLI::Range(0, 100));
  primitives
      ->add_option("--max-seconds", o->max_seconds,
                   "a contender whose run takes longer stops at that size")
      ->check(CLI::Range(1, 1000));
  primitives->add_flag("--sweep", o->sweep,
                       "also time a few kernel shapes (PrimitiveTuning) at 2^26, 2^28");
  primitives->add_flag("--no-charts", o->no_charts, "do not draw PNG charts");
  primitives
      ->add_option("--paths", o->paths,
                   "auto: the device's kernels; both: also the other family (subgroup or "
                   "shared-memory kernels), as contender gpgpu-shared / gpgpu-subgroups")
      ->check(CLI::IsMember({"auto", "both"}));
  primitives->add_flag("--no-cpu", o->no_cpu, "do not time the parallel CPU algorithms");
  primitives->add_option("--tuning", o->tuning,
                         "kernel shapes for the whole run, as PrimitiveTuning fields: "
                         "field=value,... (e.g. onesweep_local=512,onesweep_keys=11)");
  // `gpgpu bench nn`: CNN epoch times at several batch sizes (bench/nn/nn_bench.hpp).
  struct NnOptions {
    std::string data, net = "cnn";
    std::vector<std::size_t> batches{64, 256};
    std::size_t epochs = 3, inference_batch = 10000, inference_calls = 5, train_limit = 0,
                test_limit = 0, tf_images = 0;
    std::vector<std::string> cpu_threads;
    std::size_t cpu_images = 6400, cpu_inference_batch = 1000;
    bool gpu = false, skip_gpu = false, no_torch = false, no_replay = false;
    std::string torch_script, python = "python3", fuse_pooling = "off";
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
  nn->add_option("--inference-calls", n->inference_calls,
                 "timed classifications of the test set (their median is reported), after "
                 "one that builds and tunes and a second of warm-up")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  nn->add_option("--train-limit", n->train_limit, "train on the first N images only");
  nn->add_option("--test-limit", n->test_limit, "classify the first N test images only");
  nn->add_option("--tf-images", n->tf_images,
                 "also time the transform-feedback backend on N images");
  nn->add_option("--cpu-threads", n->cpu_threads,
                 "time the cpu backend (and PyTorch on the CPU, if importable) at these thread "
                 "counts, e.g. 1,2,all (default on llvmpipe: 1,2,all)")
      ->delimiter(',');
  nn->add_option("--cpu-images", n->cpu_images, "training images of the cpu section")
      ->capture_default_str();
  nn->add_option("--cpu-inference-batch", n->cpu_inference_batch,
                 "batch size of the cpu section's inference")
      ->capture_default_str();
  nn->add_flag("--no-torch", n->no_torch, "do not run PyTorch in the cpu section");
  nn->add_option("--torch-script", n->torch_script, "bench/nn/torch_cnn.py elsewhere");
  nn->add_option("--python", n->python, "the python that imports torch")->capture_default_str();
  nn->add_flag("--skip-gpu", n->skip_gpu, "only the cpu section");
  nn->add_flag("--no-replay", n->no_replay,
               "the compute backend runs every kernel on its own instead of replaying its "
               "recorded passes (for a same-run comparison)");
  nn->add_option("--fuse-pooling", n->fuse_pooling,
                 "the compute backend's Conv2D + pooling fusion (BackendOptions::fuse_pooling): "
                 "auto, off, kernel (backward through a kernel), loads (in the GEMMs' loads)")
      ->check(CLI::IsMember({"auto", "off", "kernel", "loads"}))
      ->capture_default_str();
  nn->add_flag("--gpu", n->gpu, "the compute-backend section on llvmpipe too (slow)");
  // `gpgpu bench grid`: the earth grid built on the CPU, the GPU, by Auto, and read warm.
  auto g = std::make_shared<GridBenchOptionsHolder>();
  auto* grid = sub->add_subcommand(
      "grid",
      "The earth grid per level: cold builds (springs on the CPU, on the GPU, Auto), warm "
      "reads from the disk cache, stage times, and the statistics that show the grids agree");
  grid->add_option("--levels", g->levels, "grid levels")->delimiter(',')->check(CLI::Range(0, 11));
  grid->add_option("--repeats", g->repeats, "timed builds per point (median; 1 at levels >= 9)")
      ->check(CLI::Range(1, 100));
  grid->add_option("--cpu-max-level", g->cpu_max_level, "no CPU or Auto build above this level");
  grid->add_flag("--no-gpu", g->no_gpu, "do not time the GPU build");
  grid->add_flag("--verbose", g->verbose, "print every build's stages");
  // `gpgpu bench startup`: fresh processes, empty and warm caches (bench/startup/).
  struct StartupCli {
    std::string net = "small", data, probe, probe_file;
    std::size_t train_limit = 2000, test_limit = 500;
    int repeats = 3;
  };
  auto st = std::make_shared<StartupCli>();
  auto* startup = sub->add_subcommand(
      "startup",
      "Time to first result of fresh processes (context, first kernel, sort, predict, train) "
      "with an empty and a warm cache, beside the steady state");
  startup->add_option("--net", st->net, "network of the training case")->capture_default_str();
  startup->add_option("--train-limit", st->train_limit, "training images (0: all)")
      ->capture_default_str();
  startup->add_option("--test-limit", st->test_limit, "test images (0: all)")
      ->capture_default_str();
  startup->add_option("--repeats", st->repeats, "fresh processes per case and cache state")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  startup->add_option("--data", st->data, "IDX data directory (default: Fashion-MNIST)");
  // The child processes of `bench startup` (not for users: hidden).
  auto* probe = sub->add_subcommand("startup-probe", "")->group("");
  probe->add_option("what", st->probe, "context, kernel, sort or predict")->required();
  probe->add_option("file", st->probe_file, "keys .npy (sort) or model (predict)");
  probe->add_option("--data", st->data, "IDX data directory");
  // `gpgpu bench dispatch`: run and replay per dispatch, beside CUDA (bench/dispatch/).
  auto d = std::make_shared<DispatchCli>();
  auto* dispatch = sub->add_subcommand(
      "dispatch",
      "CPU microseconds per dispatch through ComputeKernel::run and a replayed Sequence, GPU "
      "microseconds per dependent dispatch, beside CUDA stream launches and a CUDA graph");
  dispatch->add_option("--chain", d->chain, "dispatches per round (even)")
      ->capture_default_str()
      ->check(CLI::Range(2, 100000));
  dispatch->add_option("--rounds", d->rounds, "timed rounds (median)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  dispatch->add_option("--warmup", d->warmup, "untimed rounds first")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  dispatch->add_flag("--no-cuda", d->no_cuda, "do not compare with CUDA");
  for (auto* s : {matmul, memory, datapath, ceiling, primitives, nn, grid, startup, dispatch}) {
    s->add_option("-d,--device", o->device, "auto, an index, or a word of the renderer");
    s->add_option("--out", o->out_dir, "directory for the JSON, CSV and PNG results");
  }
  return [o, n, g, st, d, mem, matmul, memory, datapath, ceiling, primitives, nn, grid, startup,
          probe, dispatch]() -> int {
    if (dispatch->parsed()) {
#if GPGPU_HAVE_DISPATCH_BENCH
      Context ctx({.device = o->device});
      bench::DispatchBenchOptions options;
      options.chain = d->chain;
      options.rounds = d->rounds;
      options.warmup = d->warmup;
      options.cuda = !d->no_cuda;
      options.out_dir = std::filesystem::path(o->out_dir) / "dispatch";
      return bench::run_dispatch_bench(options, ctx);
#else
      throw UnsupportedError(
          "this gpgpu was built without the benchmarks (configure with -DGPGPU_BUILD_BENCH=ON)");
#endif
    }
    if (startup->parsed() || probe->parsed()) {
#if GPGPU_HAVE_STARTUP_BENCH
      if (probe->parsed()) return bench::run_startup_probe(st->probe, st->probe_file, st->data);
      bench::StartupBenchOptions options;
      options.data = st->data;
      options.net = st->net;
      options.train_limit = st->train_limit;
      options.test_limit = st->test_limit;
      options.repeats = st->repeats;
      options.device = o->device == "auto" ? "" : o->device;
      options.out = o->out_dir;
      return bench::run_startup_bench(options);
#else
      throw UnsupportedError(
          "this gpgpu was built without the startup benchmark (it needs gpgpu::nn)");
#endif
    }
    if (grid->parsed()) {
#if GPGPU_HAVE_GRID_BENCH
      Context ctx({.device = o->device});
      bench::GridBenchOptions options;
      options.levels = g->levels;
      options.repeats = g->repeats;
      options.cpu_max_level = g->cpu_max_level;
      options.gpu = !g->no_gpu;
      options.verbose = g->verbose;
      options.out = o->out_dir;
      return bench::run_grid_bench(options, ctx);
#else
      throw UnsupportedError("this gpgpu was built without the grid benchmark (gpgpu::earth)");
#endif
    }
    if (primitives->parsed()) {
#if GPGPU_HAVE_PRIMITIVES_BENCH
      Context ctx({.device = o->device});
      std::cerr << "device: " << ctx.info().renderer << " (" << ctx.info().version << ")\n";
      bench::PrimitivesBenchOptions options;
      options.log2_sizes = o->log2_sizes;
      options.primitives = o->primitives;
      options.repeats = o->primitive_repeats;
      options.warmup = o->warmup;
      options.max_seconds_per_run = o->max_seconds;
      options.out_dir = std::filesystem::path(o->out_dir) / "primitives";
      options.charts = !o->no_charts;
      options.sweep = o->sweep;
      options.both_paths = o->paths == "both";
      options.cpu = !o->no_cpu;
      options.tuning = o->tuning;
      options.command_line = "gpgpu bench primitives";
      return bench::run_primitives_bench(options, ctx);
#else
      throw UnsupportedError(
          "this gpgpu was built without the benchmarks (configure with -DGPGPU_BUILD_BENCH=ON)");
#endif
    }
    if (nn->parsed()) {
#if GPGPU_HAVE_NN_BENCH
      Context ctx({.device = o->device});
      bench::NnBenchOptions options;
      options.data = n->data;
      options.net = n->net;
      options.batches = n->batches;
      options.epochs = n->epochs;
      options.inference_batch = n->inference_batch;
      options.inference_calls = n->inference_calls;
      options.train_limit = n->train_limit;
      options.test_limit = n->test_limit;
      options.tf_images = n->tf_images;
      options.out = o->out_dir;
      const bool software = ctx.info().is_software;
      options.gpu = !n->skip_gpu && (!software || n->gpu);
      std::vector<std::string> threads = n->cpu_threads;
      if (threads.empty() && software) threads = {"1", "2", "all"};
      for (const auto& t : threads) {
        if (t == "all") {
          options.cpu_threads.push_back(0);
        } else if (!t.empty() && t.find_first_not_of("0123456789") == std::string::npos &&
                   std::stoul(t) > 0) {
          options.cpu_threads.push_back(std::stoul(t));
        } else {
          throw ArgumentError(
              fmt::format("--cpu-threads takes positive counts or 'all'; got '{}'", t));
        }
      }
      options.cpu_images = n->cpu_images;
      options.cpu_inference_batch = n->cpu_inference_batch;
      options.torch = !n->no_torch;
      options.replay = !n->no_replay;
      options.fuse_pooling = n->fuse_pooling;
      options.torch_script = n->torch_script;
      options.python = n->python;
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
      options.max_seconds_per_point = o->max_point_seconds;
      options.max_seconds_per_run = o->max_run_seconds;
      options.full_check_max_n = o->full_check_max_n;
      options.seed = o->seed;
      options.command_line = "gpgpu bench matmul";
      return bench::run_matmul_bench(options, ctx);
    }
    if (datapath->parsed()) {
      bench::DataPathBenchOptions options;
      options.which = o->which;
      options.out_dir = std::filesystem::path(o->out_dir) / "datapath";
      options.quick = o->quick;
      options.saxpy_log2 = o->saxpy_log2;
      options.pipeline_bytes = o->pipeline_mib << 20;
      options.matmul_sizes = o->sizes;
      options.cuda = !o->no_cuda;
      if (o->repeats > 0) options.repeats = o->repeats;
      options.warmup = o->warmup;
      return bench::run_datapath_bench(options, ctx);
    }
    if (ceiling->parsed()) {
      return bench::run_ceiling_bench(std::filesystem::path(o->out_dir) / "ceiling", o->quick, ctx);
    }
    bench::MemoryBenchOptions options;
    options.which = o->which;
    options.quick = o->quick;
    options.out_dir = std::filesystem::path(o->out_dir) / "memory";
    options.repeats = mem->repeats;
    options.warmup = mem->warmup;
    options.transfer_max_bytes = mem->transfer_max;
    options.bandwidth_floats = mem->floats;
    options.transpose_n = mem->transpose_n;
    options.particles = mem->particles;
    options.cuda = !o->no_cuda;
    return bench::run_memory_bench(options, ctx);
#else
    (void)mem;
    (void)matmul;
    (void)memory;
    (void)datapath;
    (void)ceiling;
    throw UnsupportedError(
        "this gpgpu was built without the benchmarks (configure with -DGPGPU_BUILD_BENCH=ON)");
#endif
  };
}

}  // namespace gpgpu::cli
