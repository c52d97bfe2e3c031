// Internal: telling a GPU behind Mesa's software EGL device from a CPU driver.
//
// Mesa's EGL offers one software device (EGL_MESA_device_software) for whichever gallium
// driver GALLIUM_DRIVER names, and with zink that can be a GPU's Vulkan driver (zink on
// NVIDIA's, docs/portability.md): no CPU device, though the EGL device says so. A CPU driver
// (llvmpipe, zink over lavapipe) runs each work group to its end on one of its threads, so it
// never has more groups in flight than threads (a few dozen at most); a GPU has thousands.
// The probe dispatches 2048 one-invocation groups that count themselves in and out of a
// shared counter, keeping its highest value, and stay in flight a few thousand steps in
// between. Kept per device and driver like the loop limit's.
#pragma once

#include "gl/context_state.hpp"

namespace gpgpu::detail {

// More groups in flight at once than any CPU driver runs threads.
constexpr int gpu_groups_in_flight = 256;

// The most work groups the probe found in flight at once, or 0 when it could not run. Never
// throws.
int measure_groups_in_flight(const DeviceInfo& info, const PlatformTraits& platform);

}  // namespace gpgpu::detail
