// Primitive shapes kept on disk per device and driver (the "primitive-tuning" store of the
// cache): what `gpgpu bench primitives --sweep` found fastest, taken by later Contexts.
#include <cstdio>

#include <fmt/format.h>

#include "gpgpu/cache.hpp"
#include "primitive_registry.hpp"
#include "primitive_tuning.hpp"

namespace gpgpu::primitives {

namespace {

std::string key(const Context& ctx) {
  return "primitive tuning\n" + cache::device_key(ctx.info());
}

cache::Store disk() {
  return cache::Store("primitive-tuning", 2, 1u << 20);
}

std::string encode(const PrimitiveTuning& t) {
  return fmt::format("{} {} {} {} {} {} {} {} {} {} {}", t.reduce_local, t.reduce_unroll,
                     t.reduce_max_trips, t.scan_local, t.scan_scalars, t.sort_local, t.sort_keys,
                     t.sort_serial, t.texel_loads, t.onesweep_local, t.onesweep_keys);
}

std::optional<PrimitiveTuning> decode(const std::vector<std::byte>& bytes) {
  const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  PrimitiveTuning t;
  if (std::sscanf(text.c_str(), "%d %d %d %d %d %d %d %d %d %d %d", &t.reduce_local,
                  &t.reduce_unroll, &t.reduce_max_trips, &t.scan_local, &t.scan_scalars,
                  &t.sort_local, &t.sort_keys, &t.sort_serial, &t.texel_loads, &t.onesweep_local,
                  &t.onesweep_keys) != 11) {
    return std::nullopt;
  }
  return t;
}

// Read once per Context (an attachment), not at every primitive call.
struct Stored {
  std::optional<PrimitiveTuning> tuning;
};

Stored& stored(const Context& ctx) {
  return ctx.attachment<Stored>("gpgpu.primitives.stored-tuning", [&] {
    auto s = std::make_shared<Stored>();
    if (const auto bytes = disk().load(key(ctx))) s->tuning = decode(*bytes);
    return s;
  });
}

}  // namespace

const std::optional<PrimitiveTuning>& stored_tuning(const Context& ctx) {
  return stored(ctx).tuning;
}

}  // namespace gpgpu::primitives

namespace gpgpu {

void store_primitive_tuning(const Context& ctx, const PrimitiveTuning& tuning) {
  auto& reg = primitives::registry(ctx);
  const PrimitiveTuning in_effect = reg.tuning;
  set_primitive_tuning(ctx, tuning);  // validates it (throws ArgumentError)
  reg.tuning = in_effect;
  const std::string text = primitives::encode(tuning);
  primitives::disk().store(primitives::key(ctx),
                           std::as_bytes(std::span(text.data(), text.size())));
  primitives::stored(ctx).tuning = tuning;
  reg.forget_recordings();  // they hold the old shapes' kernels
}

}  // namespace gpgpu
