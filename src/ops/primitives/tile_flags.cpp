#include "tile_flags.hpp"

#include <vector>

#include "gpgpu/error.hpp"
#include "gpgpu/sequence.hpp"
#include "primitive_registry.hpp"

namespace gpgpu::primitives {

namespace {

struct KindInfo {
  const char* slot;
  const char* counter;
  std::size_t words_per_tile;
  std::uint32_t epoch_limit;  // first epoch that does not fit
};

KindInfo info(TileWordKind kind) {
  if (kind == TileWordKind::Packed) return {"scan.tile_words", "scan.word_epoch", 4, 1u << 16};
  return {"scan.tile_flags", "scan.epoch", 1, 1u << 30};
}

}  // namespace

TileFlags tile_flags(const Context& ctx, std::size_t tiles, TileWordKind kind) {
  const KindInfo k = info(kind);
  auto& reg = registry(ctx);
  bool fresh = false;
  Buffer& flags =
      reg.zeroed_scratch(ctx, k.slot, ElementType::Uint32, 1 + k.words_per_tile * tiles, fresh);
  if (fresh) reg.reset_count(k.counter);
  if (Sequence::capturing(ctx) && !reg.recording()) {
    throw UnsupportedError(
        "the look-back scan takes a fresh epoch at every call, which a gpgpu::Sequence cannot "
        "replay: call the scan (or sort) outside the capture");
  }
  reg.note_epoch(kind, tiles);
  std::uint32_t epoch = reg.next_count(k.counter);
  if (epoch >= k.epoch_limit) {
    flags.upload(std::vector<std::uint32_t>(flags.size(), 0u));
    reg.reset_count(k.counter);
    epoch = reg.next_count(k.counter);
  }
  return {&flags, epoch};
}

}  // namespace gpgpu::primitives
