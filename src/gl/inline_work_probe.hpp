// Internal: measuring whether a CPU device runs GL work inside the call that issues it.
//
// llvmpipe runs a compute dispatch inside glDispatchCompute: a fence inserted right after it
// has already signalled. zink over lavapipe, a CPU device too, queues the work to Vulkan, and
// the same fence is still pending: about a millisecond of shader work cannot finish in the
// microseconds between the two calls. What depends on it: the copy lanes, which such a
// device does not keep in order (transfer_engine_lanes.cpp), and what a timed-out run leaves
// (gl/context.cpp). Kept per device and driver like the loop limit's.
#pragma once

#include "gl/context_state.hpp"

namespace gpgpu::detail {

// True when the dispatch had finished by the time glDispatchCompute returned. False also when
// the probe could not run. Never throws.
bool measure_work_completes_in_call(const DeviceInfo& info, const PlatformTraits& platform);

// A CPU device that queues its work (zink over lavapipe): there every wait of the data path
// stays on the context's own thread and context (transfer_engine.cpp). A CPU device has no
// copy engine for a delivery thread or copy lanes to overlap with, and on this one (Mesa
// 22.3's zink) both measured wrong: a fence waited from another thread can signal before the
// copy it follows has landed, and glWaitSync across contexts is ignored
// (docs/portability.md).
inline bool cpu_device_queues_work(const DeviceInfo& info) {
  return info.is_software && !info.work_completes_in_call;
}

}  // namespace gpgpu::detail
