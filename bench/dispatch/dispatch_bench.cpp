// `gpgpu bench dispatch` (dispatch_bench.hpp).
#include "dispatch_bench.hpp"

#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/profiler.hpp"
#include "gpgpu/sequence.hpp"
#include "harness.hpp"

#if GPGPU_BENCH_HAVE_CUDA
#include "cuda_dispatch.hpp"
#endif

namespace gpgpu::bench {

namespace {

constexpr std::size_t lanes = 64;

constexpr const char* add_one_source = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) y[i] = x[i] + 1.0;
})";

// The floor of a dependent chain through GL: the same buffer read and written by every
// dispatch, so a replay issues nothing but glMemoryBarrier and glDispatchCompute per dispatch.
constexpr const char* add_one_in_place_source = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Z { float z[]; };
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) z[i] += 1.0;
})";

}  // namespace

int run_dispatch_bench(const DispatchBenchOptions& o, const Context& ctx) {
  if (o.chain <= 0 || o.chain % 2 != 0) {
    throw ArgumentError(
        fmt::format("bench dispatch: --chain must be even and positive; got {}", o.chain));
  }
  std::cout << fmt::format(
      "dispatch cost on {}: chains of {} one-group dispatches of {} invocations, median of {} "
      "rounds\n",
      ctx.info().renderer, o.chain, lanes, o.rounds);
  ComputeKernel kernel(ctx, add_one_source, {}, "add one");
  ComputeKernel in_place(ctx, add_one_in_place_source, {}, "add one in place");
  Buffer a(ctx, ElementType::Float32, lanes), b(ctx, ElementType::Float32, lanes);
  std::vector<Buffer> outs;  // the independent dispatches' own outputs
  for (int k = 0; k < o.chain; ++k) outs.emplace_back(ctx, ElementType::Float32, lanes);
  const auto link = [&](int k) {
    return k % 2 == 0 ? Args{{"x", a}, {"y", b}} : Args{{"x", b}, {"y", a}};
  };
  const auto independent = [&](int k) {
    return Args{{"x", a}, {"y", outs[static_cast<std::size_t>(k)]}};
  };
  const auto reset = [&] { a.upload(std::vector<float>(lanes, 0.0f)); };

  Table table("dispatch", "", {"way", "CPU us/dispatch", "GPU us/dispatch"});
  const auto row = [&](const std::string& way, double cpu_us, double gpu_us) {
    table.add({way, Cell::positive(cpu_us, 3), Cell::positive(gpu_us, 3)});
  };
  // One way of issuing a round of o.chain dispatches, per dispatch: the median host
  // microseconds of issuing (no wait), checked after each round (the chain leaves `chain` in
  // a, an independent dispatch a + 1 in its output), and the median GPU microseconds of other
  // rounds (-1 without timer queries).
  const auto time = [&](const std::string& name, bool chained, const std::function<void()>& issue) {
    const double cpu_us = median(sample({o.warmup, o.rounds}, [&] {
      reset();
      ctx.finish();
      const auto start = Clock::now();
      issue();
      const double us = 1e3 * ms_since(start);
      ctx.finish();
      const float want = chained ? static_cast<float>(o.chain) : 1.0f;
      for (float v : (chained ? a : outs.back()).to_vector<float>()) {
        if (v != want) {
          throw Error(fmt::format("bench dispatch: {} computed {} instead of {}",
                                  chained ? "the chain" : "an independent dispatch", v, want));
        }
      }
      return us / o.chain;
    }));
    // Rounds queued back to back, not drained between them as profile() does: on an idle GPU
    // the timestamps of cheap dispatches can measure the host issuing them.
    Profiler profiler(ctx);
    for (int r = 0; r < o.rounds; ++r) {
      reset();
      auto scope = profiler.scope(name);
      issue();
    }
    const ProfileStats stats = profiler.stats(name);
    const double gpu_us = stats.gpu_samples > 0 ? 1e3 * stats.gpu_median_ms / o.chain : -1;
    row(name, cpu_us, gpu_us);
    return std::pair{cpu_us, gpu_us};
  };
  const auto run_cpu = time("ComputeKernel::run, dependent", true, [&] {
                         for (int k = 0; k < o.chain; ++k) kernel.run(link(k), lanes);
                       }).first;
  Sequence chain(ctx, "dependent chain"), floor(ctx, "dependent chain in place"),
      apart(ctx, "independent");
  for (int k = 0; k < o.chain; ++k) {
    chain.record(kernel, link(k), lanes);
    floor.record(in_place, {{"z", a}}, lanes);
    apart.record(kernel, independent(k), lanes);
  }
  const auto [replay_cpu, replay_gpu] =
      time("Sequence::replay, dependent", true, [&] { chain.replay(); });
  time("Sequence::replay, dependent, in place", true, [&] { floor.replay(); });
  time("ComputeKernel::run, independent", false, [&] {
    for (int k = 0; k < o.chain; ++k) kernel.run(independent(k), lanes);
  });
  time("Sequence::replay, independent", false, [&] { apart.replay(); });
  std::string lines = fmt::format("replay / run, CPU per dispatch: {:.3f}\n", replay_cpu / run_cpu);
#if GPGPU_BENCH_HAVE_CUDA
  std::string cuda = "turned off";
  if (o.cuda) {
    try {
      const auto c = cuda_ref::dispatch_times(o.chain, o.rounds, o.warmup);
      row("CUDA stream launch, dependent", c.stream_cpu_us, c.stream_gpu_us);
      row("CUDA graph replay, dependent", c.graph_cpu_us, c.graph_gpu_us);
      cuda = c.device;
      lines += fmt::format(
          "gpgpu replay / CUDA graph replay: CPU {:.2f}x, GPU per dependent "
          "dispatch {}\n",
          replay_cpu / c.graph_cpu_us, ratio_text(replay_gpu, c.graph_gpu_us));
    } catch (const Error& e) {
      lines += fmt::format("CUDA reference: {}\n", e.what());
      cuda = e.what();
    }
  }
#else
  const std::string cuda = "not built (configure with -DGPGPU_CUDA=ON where nvcc exists)";
#endif
  table.print(std::cout);
  std::cout << lines;
  table.note(fmt::format("chains of {} one-group dispatches of {} invocations, median of {} rounds",
                         o.chain, lanes, o.rounds));
  table.note("CUDA reference: " + cuda);
  table.write(o.out_dir, "bench-", ctx.info().renderer, utc_now());
  std::cerr << "wrote " << (o.out_dir / "bench-dispatch.json").string() << "\n";
  return 0;
}

}  // namespace gpgpu::bench
