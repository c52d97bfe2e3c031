// Internal: applying a device-limit profile (gpgpu/limits.hpp) to a new context's DeviceInfo.
#pragma once

#include <string>

#include "gpgpu/limits.hpp"

namespace gpgpu::detail {

// The profile ContextOptions::limits or GPGPU_LIMITS asks for ("" or "device": none).
std::string requested_profile(const ContextOptions& options);
// Clamps `info` to the requested profile, before anything reads it to plan or to load
// extension functions. Throws ContextError for an unknown profile name.
void apply_limit_profile(DeviceInfo& info, const ContextOptions& options);

}  // namespace gpgpu::detail
