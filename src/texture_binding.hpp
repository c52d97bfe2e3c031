// Internal: binding a gpgpu::Texture to a sampler or image uniform (implemented with Texture).
#pragma once

#include <string>

#include "gl.hpp"
#include "gpgpu/arg.hpp"
#include "program_interface.hpp"

namespace gpgpu::detail {

// Checks that the texture fits the sampler (dimensions, float/int/uint), binds it to
// `unit` and points the sampler uniform at that unit.
void bind_texture_to_sampler(const Texture& texture, const UniformVariable& sampler, GLuint unit,
                             const std::string& label);
// Binds the texture's level 0 to the image unit the shader declares (layout(binding)).
void bind_texture_to_image(const Texture& texture, const UniformVariable& image, Access access,
                           const std::string& label);

}  // namespace gpgpu::detail
