// Internal: whether a gpgpu::Texture may bind to a sampler or image uniform (no GL call;
// the binding itself is in kernels/uniforms.cpp).
#pragma once

#include <string>

#include "gl/gl.hpp"
#include "gpgpu/arg.hpp"
#include "shader/program_interface.hpp"

namespace gpgpu::detail {

// Throws unless the texture can be bound to the sampler or image uniform: ArgumentError for
// an empty texture or one of another Context (compared with the current one),
// TypeMismatchError when the dimensions (2-D/3-D) or the element kind (float/int/uint) do
// not match the declaration, or the format has no image layout. Binds nothing, so kernels
// call it while validating, before any upload.
void check_texture_binding(const Texture& texture, const UniformVariable& variable,
                           const std::string& label);
// samplerBuffer / isamplerBuffer / usamplerBuffer.
bool is_buffer_sampler(GLenum type);
// Throws unless `arg` (gpgpu::texels) fits the buffer sampler: a valid Buffer of this
// Context, the sampler's element type, 1 or 4 components, within GL_MAX_TEXTURE_BUFFER_SIZE.
void check_buffer_texels(const Arg& arg, const UniformVariable& sampler, const std::string& label);

}  // namespace gpgpu::detail
