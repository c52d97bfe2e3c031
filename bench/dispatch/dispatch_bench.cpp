// `gpgpu bench dispatch` (dispatch_bench.hpp).
#include "dispatch_bench.hpp"

#include <chrono>
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

// Per-dispatch medians of one way of issuing: host microseconds to issue (no wait), and GPU
// microseconds from timestamps around the round (-1 without timer queries).
struct Way {
  std::string name;
  double cpu_us = -1, gpu_us = -1;
};

struct Setup {
  const Context& ctx;
  const DispatchBenchOptions& o;
  ComputeKernel kernel, in_place;
  Buffer a, b;
  std::vector<Buffer> outs;  // the independent dispatches' own outputs

  Setup(const Context& c, const DispatchBenchOptions& opts)
      : ctx(c),
        o(opts),
        kernel(c, add_one_source, {}, "add one"),
        in_place(c, add_one_in_place_source, {}, "add one in place"),
        a(c, ElementType::Float32, lanes),
        b(c, ElementType::Float32, lanes) {
    for (int k = 0; k < o.chain; ++k) outs.emplace_back(c, ElementType::Float32, lanes);
  }
  Args link(int k) { return k % 2 == 0 ? Args{{"x", a}, {"y", b}} : Args{{"x", b}, {"y", a}}; }
  Args independent(int k) { return {{"x", a}, {"y", outs[static_cast<std::size_t>(k)]}}; }
  void reset() { a.upload(std::vector<float>(lanes, 0.0f)); }
  // The chain leaves `chain` in a; every independent dispatch leaves a + 1 in its output.
  void expect(bool chained) {
    const auto check = [&](const Buffer& buf, float want, const char* what) {
      for (float v : buf.to_vector<float>()) {
        if (v != want) {
          throw Error(fmt::format("bench dispatch: {} computed {} instead of {}", what, v, want));
        }
      }
    };
    if (chained) {
      check(a, static_cast<float>(o.chain), "the chain");
    } else {
      check(outs.back(), 1.0f, "an independent dispatch");
    }
  }
};

// Times `issue` (one round of o.chain dispatches): median host time of issuing, and median GPU
// time from a Profiler scope around a separate round.
template <class Issue>
Way time_way(Setup& s, Profiler& profiler, const std::string& name, bool chained, Issue issue) {
  std::vector<double> cpu;
  for (int r = 0; r < s.o.warmup + s.o.rounds; ++r) {
    s.reset();
    s.ctx.finish();
    const auto start = Clock::now();
    issue();
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    s.ctx.finish();
    s.expect(chained);
    if (r >= s.o.warmup) cpu.push_back(us / s.o.chain);
  }
  for (int r = 0; r < s.o.rounds; ++r) {
    s.reset();
    auto scope = profiler.scope(name);
    issue();
    scope.stop();
  }
  Way w{name, median(cpu), -1};
  const auto stats = profiler.stats(name);
  if (stats.gpu_samples > 0) w.gpu_us = 1e3 * stats.gpu_median_ms / s.o.chain;
  return w;
}

std::vector<Way> time_gl(const Context& ctx, const DispatchBenchOptions& o) {
  Setup s(ctx, o);
  Profiler profiler(ctx);
  std::vector<Way> ways;
  ways.push_back(time_way(s, profiler, "ComputeKernel::run, dependent", true, [&] {
    for (int k = 0; k < o.chain; ++k) s.kernel.run(s.link(k), lanes);
  }));
  Sequence chain(ctx, "dependent chain");
  for (int k = 0; k < o.chain; ++k) chain.record(s.kernel, s.link(k), lanes);
  ways.push_back(
      time_way(s, profiler, "Sequence::replay, dependent", true, [&] { chain.replay(); }));
  Sequence floor(ctx, "dependent chain in place");
  for (int k = 0; k < o.chain; ++k) floor.record(s.in_place, {{"z", s.a}}, lanes);
  ways.push_back(time_way(s, profiler, "Sequence::replay, dependent, in place", true,
                          [&] { floor.replay(); }));
  ways.push_back(time_way(s, profiler, "ComputeKernel::run, independent", false, [&] {
    for (int k = 0; k < o.chain; ++k) s.kernel.run(s.independent(k), lanes);
  }));
  Sequence apart(ctx, "independent");
  for (int k = 0; k < o.chain; ++k) apart.record(s.kernel, s.independent(k), lanes);
  ways.push_back(
      time_way(s, profiler, "Sequence::replay, independent", false, [&] { apart.replay(); }));
  return ways;
}

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
  Table table("dispatch", "", {"way", "CPU us/dispatch", "GPU us/dispatch"});
  const auto row = [&](const std::string& way, double cpu_us, double gpu_us) {
    table.add({way, Cell::positive(cpu_us, 3), Cell::positive(gpu_us, 3)});
  };
  const auto ways = time_gl(ctx, o);
  for (const auto& w : ways) row(w.name, w.cpu_us, w.gpu_us);
  const double run_cpu = ways[0].cpu_us, replay_cpu = ways[1].cpu_us;
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
          replay_cpu / c.graph_cpu_us, ratio_text(ways[1].gpu_us, c.graph_gpu_us));
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
