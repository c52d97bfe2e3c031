// Internal: reading a context's capabilities once it is current.
#pragma once

#include "gl/context_state.hpp"

namespace gpgpu::detail {

DeviceInfo read_device_info(EGLDisplay display, const DeviceDescription& device);
ExtensionFunctions load_extension_functions(const DeviceInfo& info);
// Prints the driver's high- and medium-severity debug messages to stderr (debug contexts).
void enable_debug_output(const DeviceInfo& info);

}  // namespace gpgpu::detail
