#include "tile_flags.hpp"

#include <vector>

#include "gpgpu/error.hpp"
#include "gpgpu/sequence.hpp"
#include "primitive_registry.hpp"

namespace gpgpu::primitives {

TileFlags tile_flags(const Context& ctx, std::size_t tiles) {
  auto& reg = registry(ctx);
  bool fresh = false;
  Buffer& flags = reg.zeroed_scratch(ctx, "scan.tile_flags", ElementType::Uint32, tiles + 1, fresh);
  if (fresh) reg.reset_count("scan.epoch");
  if (Sequence::capturing(ctx) && !reg.recording()) {
    throw UnsupportedError(
        "the look-back scan takes a fresh epoch at every call, which a gpgpu::Sequence cannot "
        "replay: call the scan (or sort) outside the capture");
  }
  reg.note_epoch(tiles);
  std::uint32_t epoch = reg.next_count("scan.epoch");
  if (epoch >= (1u << 30)) {
    flags.upload(std::vector<std::uint32_t>(flags.size(), 0u));
    reg.reset_count("scan.epoch");
    epoch = reg.next_count("scan.epoch");
  }
  return {&flags, epoch};
}

}  // namespace gpgpu::primitives
