// Internal: binding a gpgpu::Texture to a sampler or image uniform (implemented with Texture).
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

// Checks that the texture fits the sampler (dimensions, float/int/uint), binds it to
// `unit` and points the sampler uniform at that unit.
void bind_texture_to_sampler(const Texture& texture, const UniformVariable& sampler, GLuint unit,
                             const std::string& label);
// Binds the texture's level 0 to the image unit the shader declares (layout(binding)).
void bind_texture_to_image(const Texture& texture, const UniformVariable& image, Access access,
                           const std::string& label);

}  // namespace gpgpu::detail
