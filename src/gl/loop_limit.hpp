// Internal: measuring how many iterations the device lets a shader loop run.
//
// Mesa's llvmpipe ends loops silently: every loop back-edge of one shader invocation takes
// one from a budget of 65535 (LP_MAX_TGSI_LOOP_ITERATIONS, shared by all the loops of the
// invocation, nested or not), and once it is spent each loop leaves at its next back-edge.
// The result is wrong, with no error. GPUs have no such cap. gpgpu measures it once per
// device and process with a tiny kernel, so that its own kernels can split long loops across
// dispatches (each dispatch starts with a full budget) and users can see it in info(). The
// answer is kept in the disk cache per device and driver (the "loop-limit" store), so later
// processes do not probe again.
#pragma once

#include <cstdint>

#include "gl/context_state.hpp"

namespace gpgpu::detail {

struct LoopLimit {
  std::int64_t max_iterations = 0;   // 0: no cap seen up to probe_iterations
  bool shared_by_all_loops = false;  // nested loops count against one budget
  std::int64_t probe_iterations = 0;
};

// Runs the probe on the current context (or returns the result kept, in this process or on
// disk, for the same device and driver). Never throws: a probe that fails reports no cap.
// The probe is a compute shader: a platform without them (WebGL2) reports no cap unprobed.
LoopLimit measure_loop_limit(const DeviceInfo& info, const PlatformTraits& platform);

}  // namespace gpgpu::detail
