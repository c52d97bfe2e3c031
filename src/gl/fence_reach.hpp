// Internal: whether GL fences order work across this device's threads and contexts, which
// the data path's delivery thread and copy lanes rest on (transfer_engine.cpp).
//
// Two kinds of device measured where they do not:
// - a CPU device that queues its work (zink over lavapipe; gl/inline_work_probe.hpp);
// - Mesa's zink on any Vulkan device (22.3): glWaitSync on another context's fence holds
//   nothing back (zink_fence_server_sync acts only on imported semaphores), and a fence
//   waited from another thread can signal before the copy it follows has landed. On the
//   H200's Vulkan driver the copy lanes and the delivery thread came back wrong (datapath,
//   overlap and sort tests, 2026-11-29; docs/portability.md), as they had over lavapipe.
// zink is known by its renderer string ("zink (...)"), as Mesa names it on every device.
#pragma once

#include "gl/inline_work_probe.hpp"

namespace gpgpu::detail {

inline bool is_mesa_zink(const DeviceInfo& info) {
  return info.renderer.rfind("zink", 0) == 0;
}

// Why fences do not order other threads' work on this device ("Mesa's zink", "a CPU device
// that queues its work"), or null where they do. The data path and `gpgpu info` say it.
inline const char* fences_stay_local_because(const DeviceInfo& info) {
  if (is_mesa_zink(info)) return "Mesa's zink";
  if (cpu_device_queues_work(info)) return "a CPU device that queues its work";
  return nullptr;
}

// False: every wait of the data path stays on the context's own thread and context.
inline bool fences_order_other_threads(const DeviceInfo& info) {
  return fences_stay_local_because(info) == nullptr;
}

}  // namespace gpgpu::detail
