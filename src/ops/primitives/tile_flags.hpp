// Internal: the tile flags of the look-back kernels (scan, compaction) and a call's epoch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"

namespace gpgpu::primitives {

// The two kinds of look-back words, each in its own Buffer with its own epochs (a flag's
// epoch << 2 would read as a packed word's tag).
enum class TileWordKind {
  Flags,   // scan_glsl: one word per tile, (epoch << 2) | state; epochs below 2^30
  Packed,  // look_back_glsl: four per tile, (16 bits << 16) | epoch; epochs below 2^16
};

struct TileFlags {
  Buffer* flags;        // [0]: the tile counter (zero between calls), then the tiles' words
  std::uint32_t epoch;  // this call's, never 0
};

// Words of `kind` for `tiles` tiles and a fresh epoch: words of earlier calls read as "not
// ready"; before the epochs would run out, the words start again from zeros.
TileFlags tile_flags(const Context& ctx, std::size_t tiles,
                     TileWordKind kind = TileWordKind::Flags);

}  // namespace gpgpu::primitives
