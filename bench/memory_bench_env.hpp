// bench/memory_bench_env.hpp — what the memory benchmarks share: the context, the options
// with device-dependent defaults resolved, timing, the CUDA reference, and output.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"
#include "memory_runner.hpp"
#include "memory_table.hpp"

namespace gpgpu::bench {

struct Timing {
  double gpu_ms = -1;   // median GPU time (timestamps); -1 without timer queries
  double wall_ms = -1;  // median fenced wall time
  // The GPU time where there is one: kernels are compared by what the GPU spent.
  double kernel_ms() const { return gpu_ms >= 0 ? gpu_ms : wall_ms; }
};

class BenchEnv {
 public:
  BenchEnv(Context& context, const MemoryBenchOptions& options);

  Context& context;
  MemoryBenchOptions options;  // with the sizes resolved for this device
  std::ostream& log;
  std::string device;  // the GL renderer
  std::string date;    // UTC, ISO 8601

  bool software() const { return context.info().is_software; }
  // `warmup` untimed calls, then `repeats` calls each in a Profiler scope.
  Timing measure(const std::function<void()>& call) const;
  // GB/s of `bytes` moved in `ms` milliseconds (1e9 bytes per second).
  static double gbps(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e6) : 0; }

  // The CUDA reference, when built (GPGPU_BENCH_HAVE_CUDA) and a device is present.
  bool cuda_available() const { return cuda_ok_; }
  const std::string& cuda_status() const { return cuda_status_; }
  double cuda_pinned_gbps(std::size_t bytes, bool host_to_device) const;  // -1 if unavailable
  double cuda_device_copy_gbps(std::size_t bytes) const;                  // -1 if unavailable

  // The device-to-device copy bandwidth through glCopyBufferSubData (read + write counted).
  double gl_copy_gbps(const Buffer& from, Buffer& to) const;

  void finish(const ResultTable& table) const;  // print, and write files when out_dir is set

 private:
  bool cuda_ok_ = false;
  std::string cuda_status_;
};

// Ratio text "0.62x", or "-" when the reference is missing.
Cell ratio(double value, double reference);

void run_transfer_bench(BenchEnv& env);
void run_bandwidth_bench(BenchEnv& env);
void run_transpose_bench(BenchEnv& env);
void run_soa_bench(BenchEnv& env);
void run_workgroup_bench(BenchEnv& env);

}  // namespace gpgpu::bench
