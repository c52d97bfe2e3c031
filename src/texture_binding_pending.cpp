// Placeholder until gpgpu::Texture lands (issue 3): binding a texture is refused clearly.
#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "texture_binding.hpp"

namespace gpgpu::detail {

void bind_texture_to_sampler(const Texture&, const UniformVariable& sampler, GLuint,
                             const std::string& label) {
  throw UnsupportedError(fmt::format("{}: textures are not available yet ({})", label, sampler.name));
}

void bind_texture_to_image(const Texture&, const UniformVariable& image, Access,
                           const std::string& label) {
  throw UnsupportedError(fmt::format("{}: textures are not available yet ({})", label, image.name));
}

}  // namespace gpgpu::detail
