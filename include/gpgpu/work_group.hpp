// gpgpu/work_group.hpp — the default work-group size for one-dimensional kernels.
//
// A work group should be a multiple of the warp (32 invocations on NVIDIA, 64 on AMD's
// wavefronts; llvmpipe runs 8 or 16 lanes of a CPU vector), large enough to give the
// scheduler several warps to switch between while memory is slow, and no larger than the
// registers and shared memory of heavier kernels allow. Memory-bound kernels run at about
// the same speed over a wide range of sizes, so gpgpu measures one (a vec4 SAXPY over 64 MiB
// on a GPU, 8 MiB on llvmpipe) at every multiple-of-32 power of two the device allows, and
// takes, among the sizes within 5% of the fastest, the one nearest 256 — the conventional
// compromise for kernels heavier than SAXPY. The choice is measured once per device (renderer
// and driver version) and kept in the disk cache (the "work-group" store, gpgpu/cache.hpp),
// so later processes take it without measuring; without GPU timer queries the fenced wall
// clock times it.
//
//   int local = gpgpu::preferred_work_group_size(ctx);
//   gpgpu::ComputeKernel k(ctx, source, {{"LOCAL", std::to_string(local)}});
//   // layout(local_size_x = LOCAL) in;
#pragma once

#include <string>
#include <vector>

#include "gpgpu/context.hpp"

namespace gpgpu {

// One work-group size timed by choose_work_group_size.
struct WorkGroupTiming {
  int size = 0;           // invocations per work group
  double median_ms = -1;  // one SAXPY over the measurement array
  double gbps = 0;        // bytes read and written per second, 1e9
};

// The work-group size chosen for a device, and how.
struct WorkGroupChoice {
  int size = 0;           // invocations per work group
  bool measured = false;  // false: from the cache (this process or disk) or the heuristic
  std::string reason;     // how the size was chosen, in words
  std::vector<WorkGroupTiming> timings;  // empty unless measured
};

// How choose_work_group_size chooses.
struct WorkGroupOptions {
  bool use_cache = true;   // return an earlier measurement for this device (this process or
                           // the disk cache) if there is one
  bool measure = true;     // false: the heuristic only (256, clamped to the device)
  std::size_t floats = 0;  // 0: 2^24 on GPUs, 2^21 on software renderers
  int warmup = 2;          // untimed runs per size
  int repeats = 5;         // timed runs per size (the median counts)
};

// The sizes measured: powers of two from 32 to the device's limit (at most 1024).
std::vector<int> work_group_size_candidates(const DeviceInfo& info);

// Measures (or takes from the cache) and explains the choice.
WorkGroupChoice choose_work_group_size(const Context& context,
                                       const WorkGroupOptions& options = {});

// choose_work_group_size(context).size: measured on first use per device and driver, then
// cached in the process and on disk.
int preferred_work_group_size(const Context& context);

}  // namespace gpgpu
