// Internal: copying a texture's texels back to the host, bit-exact, whatever its format.
#pragma once

#include <cstddef>

#include "gl/context_state.hpp"
#include "gpgpu/texel_type.hpp"

namespace gpgpu::detail {

struct TextureExtent {
  std::size_t cols = 0, rows = 0, depth = 0;  // depth 0: a 2-D texture
};

// Reads the first `texels` texels of the texture in row-major order (x fastest, then y,
// then layer) into `out`: components(type) 32-bit values per texel. Colour-renderable
// formats go through a framebuffer and glReadPixels (one layer at a time); the others
// (RGB32F always, float formats without GL_EXT_color_buffer_float) through a compute
// shader that texelFetches into a storage buffer. `out` is written only once everything
// has been read, so a failure leaves it unchanged.
void read_texture(ContextState& state, GLuint texture, TexelType type, TextureExtent extent,
                  std::size_t texels, void* out);

}  // namespace gpgpu::detail
