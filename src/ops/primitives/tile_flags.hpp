// Internal: the tile flags of the look-back kernels (scan, compaction) and a call's epoch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"

namespace gpgpu::primitives {

struct TileFlags {
  Buffer* flags;        // [0]: the tile counter (zero between calls), [1 + tile]: the flags
  std::uint32_t epoch;  // flags hold epoch << 2 | state
};

// Flags for `tiles` tiles and a fresh epoch: flags of earlier calls read as "not ready";
// past 2^30 epochs the flags start again from zeros.
TileFlags tile_flags(const Context& ctx, std::size_t tiles);

}  // namespace gpgpu::primitives
