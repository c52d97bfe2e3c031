// Internal: turning the user's GLSL into a complete shader and its errors into messages.
#pragma once

#include <string>
#include <string_view>

#include "gl/gl.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/defines.hpp"

namespace gpgpu::detail {

// Completes user source: keeps or adds `#version 3x0 es`, hoists `#extension` lines above
// everything else, adds the defines (and gpgpu_group_size in compute shaders), default
// precisions and `library_prelude`, then
// `#line 1` so the driver's line numbers are the user's. Lines the user wrote keep their
// numbers because hoisted directives leave blank lines behind.
std::string complete_source(std::string_view user_source, GLenum stage, const DeviceInfo& info,
                            const Defines& defines, std::string_view library_prelude);

// gpgpu_group_size, defined in every compute shader: 256 invocations, or the largest power
// of two the device's work groups hold when that is fewer (128 at OpenGL ES 3.1's minimum).
// gpgpu's own one-dimensional kernels declare `layout(local_size_x = gpgpu_group_size)`.
int group_size(const DeviceInfo& info);

// "compute", "vertex", "fragment".
const char* stage_name(GLenum stage);

// The driver log followed by the user's source with line numbers, error lines marked.
std::string annotate_log(std::string_view log, std::string_view user_source);

}  // namespace gpgpu::detail
