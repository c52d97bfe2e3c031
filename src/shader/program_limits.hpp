// Internal: whether a linked program fits the device's limits, as DeviceInfo states them
// (clamped to a device-limit profile, gpgpu/limits.hpp, where one is active).
#pragma once

#include <string>
#include <vector>

#include "gpgpu/context.hpp"
#include "shader/program_interface.hpp"
#include "shader/program_link.hpp"

namespace gpgpu::detail {

// Throws DeviceLimitError naming the limit, the program's figure and the device's, for the
// first limit the program exceeds: work-group size and invocations, storage buffers per
// stage and in all, binding points, images and textures per stage, and (under a profile)
// the shared memory its compute source declares. The same check for gpgpu's own kernels
// and a user's, so both meet the error a smaller device's driver would give.
void check_program_fits(const ProgramInterface& pi, const std::vector<ShaderStage>& stages,
                        const DeviceInfo& info, const std::string& label);

}  // namespace gpgpu::detail
