// bench/primitives_bench_common.hpp — timing, data and helpers shared by the primitives
// benchmark's runner and its tuning sweep. Internal to gpgpu_bench_primitives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "harness.hpp"
#include "primitives_report.hpp"

namespace gpgpu::bench {

struct Measured {
  double ms = -1;  // median of one call
  int runs = 0;
  std::string timing;
};

// The median time of call(), setup() running before each, untimed: GPU timestamps where the
// device has working timer queries, else the fenced wall clock (gpgpu::Profiler).
inline Measured time_gpgpu(const Context& ctx, const Budget& budget,
                           const std::function<void()>& call,
                           const std::function<void()>& setup = {}) {
  const Timing t = profile(ctx, budget, call, setup);
  const bool gpu = !ctx.info().is_software && t.gpu_ms >= 0;
  return {gpu ? t.gpu_ms : t.wall_ms, t.runs, gpu ? "GPU timestamps" : "fenced wall clock"};
}

inline Measured time_cpu(const Budget& budget, const std::function<void()>& call) {
  const auto ms = wall_times(budget, call);
  return {median(ms), static_cast<int>(ms.size()), "steady_clock"};
}

// Reproducible data from a seed (splitmix64).
std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi);
std::vector<std::uint32_t> random_uints(std::size_t n, std::uint64_t seed);

// A GLSL copy of one uint32 Buffer into another of the same size (vec4 where it can).
class DeviceCopy {
 public:
  explicit DeviceCopy(const Context& ctx);
  void run(const Buffer& from, Buffer& to);

 private:
  ComputeKernel vec4_, scalar_;
};

// Times a few PrimitiveTuning shapes per primitive at 2^26 and 2^28 (what fits), gpgpu
// only, each result checked; restores the Context's tuning afterwards.
void run_tuning_sweep(const Context& ctx, primitives_detail::Report& report, int warmup,
                      int repeats);

}  // namespace gpgpu::bench
