// bench/primitives_bench_common.hpp — timing, data and helpers shared by the primitives
// benchmark's runner and its tuning sweep. Internal to gpgpu_bench_primitives.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/profiler.hpp"
#include "primitives_report.hpp"

namespace gpgpu::bench {

struct Measured {
  double ms = -1;  // median of one call
  int runs = 0;
  std::string timing;
};

// Median time of call() over `repeats` runs (fewer when repeats_for(first run ms) says so),
// after `warmup` runs; setup() runs before each, untimed. GPU timestamps where the device
// has working timer queries, else the fenced wall clock (gpgpu::Profiler).
template <class Setup, class Call, class RepeatsFor>
Measured time_gpgpu(const Context& ctx, Setup setup, Call call, int warmup, int repeats,
                    RepeatsFor repeats_for) {
  double first_ms = 0;
  for (int i = 0; i < std::max(1, warmup); ++i) {
    setup();
    ctx.finish();
    const auto t0 = std::chrono::steady_clock::now();
    call();
    ctx.finish();
    first_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  const int runs = std::max(1, std::min(repeats, repeats_for(first_ms)));
  Profiler prof(ctx);
  for (int i = 0; i < runs; ++i) {
    setup();
    auto scope = prof.scope("run");
    call();
    scope.stop();
  }
  const ProfileStats s = prof.stats("run");
  const bool gpu = !ctx.info().is_software && s.gpu_samples > 0;
  return {gpu ? s.gpu_median_ms : s.wall_median_ms, runs,
          gpu ? "GPU timestamps" : "fenced wall clock"};
}

template <class Call, class RepeatsFor>
Measured time_cpu(Call call, int warmup, int repeats, RepeatsFor repeats_for) {
  double first_ms = 0;
  for (int i = 0; i < std::max(1, warmup); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    first_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  const int runs = std::max(1, std::min(repeats, repeats_for(first_ms)));
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], runs, "steady_clock"};
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

std::string cpu_model_name();
std::string load_average();

// Times a few PrimitiveTuning shapes per primitive at 2^26 and 2^28 (what fits), gpgpu
// only, each result checked; restores the Context's tuning afterwards.
void run_tuning_sweep(const Context& ctx, primitives_detail::Report& report, int warmup,
                      int repeats);

}  // namespace gpgpu::bench
