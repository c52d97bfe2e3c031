// bench/memory_bench.hpp — what the memory benchmarks share: a harness Session, the options
// with the device-dependent sizes resolved, and the copies they are measured against.
#pragma once

#include "gpgpu/buffer.hpp"
#include "harness.hpp"
#include "memory_runner.hpp"

namespace gpgpu::bench {

struct MemoryEnv : Session {
  MemoryEnv(Context& context, const MemoryBenchOptions& resolved);
  MemoryBenchOptions o;  // with the sizes resolved for this device

  // The CUDA reference's bandwidths in GB/s; -1 where it cannot run.
  double cuda_pinned_gbps(std::size_t bytes, bool host_to_device) const;
  double cuda_device_copy_gbps(std::size_t bytes) const;
  // The device-to-device copy bandwidth of TransferQueue::copy (read + write counted).
  double gl_copy_gbps(const Buffer& from, Buffer& to) const;
};

void run_transfer_bench(MemoryEnv& env);
void run_bandwidth_bench(MemoryEnv& env);
void run_transpose_bench(MemoryEnv& env);
void run_soa_bench(MemoryEnv& env);
void run_workgroup_bench(MemoryEnv& env);

}  // namespace gpgpu::bench
