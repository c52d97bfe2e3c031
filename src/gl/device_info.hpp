// Internal: reading a context's capabilities once it is current.
#pragma once

#include "gl/context_state.hpp"

namespace gpgpu::detail {

// The GL side of DeviceInfo (the platform adds its own: EGL's vendor and version).
// `cpu_device`: the platform reports that the CPU runs the shaders (DeviceInfo::is_software).
DeviceInfo read_device_info(const DeviceDescription& device, bool cpu_device);
ExtensionFunctions load_extension_functions(const DeviceInfo& info);
// Debug contexts: high-severity driver messages become errors of the call that caused them
// (through note_debug_error), medium-severity ones are printed to stderr.
void enable_debug_output(const DeviceInfo& info);

}  // namespace gpgpu::detail
