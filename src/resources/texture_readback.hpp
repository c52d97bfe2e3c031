// Internal: copying a texture's texels back to the host, bit-exact, whatever its format,
// through the Context's transfer engine.
#pragma once

#include <cstddef>

#include "gl/context_state.hpp"
#include "gpgpu/texel_type.hpp"
#include "transfer/run_transfers.hpp"

namespace gpgpu::detail {

struct TextureExtent {
  std::size_t cols = 0, rows = 0, depth = 0;  // depth 0: a 2-D texture
};

// Queues on `io` a read of the first `texels` texels of the texture in row-major order (x
// fastest, then y, then layer) into `out`: components(type) 32-bit values per texel.
// Colour-renderable formats go through a framebuffer and glReadPixels into a pooled pack
// buffer (one layer at a time); the others (RGB32F always, float formats without
// GL_EXT_color_buffer_float) through a compute shader that texelFetches into a pooled
// storage buffer. Either way the GPU writes four values per texel, and the commit step keeps
// the texture's components.
void queue_texture_read(ContextState& state, RunTransfers& io, GLuint texture, TexelType type,
                        TextureExtent extent, std::size_t texels, void* out);

// Queues a read of colour attachment `location` of the framebuffer bound for reading:
// `texels` texels of a cols-wide grid, row by row.
void queue_attachment_read(RunTransfers& io, int location, TexelType type, std::size_t cols,
                           std::size_t texels, void* out);

}  // namespace gpgpu::detail
