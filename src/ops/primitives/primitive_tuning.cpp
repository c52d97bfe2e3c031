#include "primitive_tuning.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstdlib>
#include <string>

#include "gpgpu/error.hpp"
#include "primitive_registry.hpp"
#include "radix_onesweep.hpp"
#include "subgroup_glsl.hpp"

namespace gpgpu::primitives {

namespace {

// The subgroup kernels where the device has them natively, unless
// $GPGPU_PRIMITIVES_SUBGROUPS (0 or 1) says otherwise; 1 on a device without them asks for
// the emulation (llvmpipe), 0 for the shared-memory kernels.
int default_subgroups(const DeviceInfo& info) {
  const char* env = std::getenv("GPGPU_PRIMITIVES_SUBGROUPS");
  if (env != nullptr && (std::string(env) == "0" || std::string(env) == "1")) {
    const bool on = std::string(env) == "1";
    if (!on || native_subgroups(info) || emulated_subgroup_size(info) > 0) return on ? 1 : 0;
  }
  return native_subgroups(info) ? 1 : 0;
}

// GPUs: wide work groups, many loads in flight, shared-memory ranking. llvmpipe: a work
// group runs on one CPU thread as 8-wide SIMD with barriers as coroutine switches, so fewer
// invocations and barriers pay, and sorting a tile sequentially per invocation beats
// ranking in shared memory.
PrimitiveTuning device_defaults(const Context& ctx) {
  PrimitiveTuning t;
  const bool software = ctx.info().is_software;
  t.reduce_local = software ? 64 : 256;
  t.reduce_unroll = 4;
  t.reduce_max_trips = software ? 1024 : 32;
  t.scan_local = software ? 64 : 256;
  t.scan_scalars = 16;
  t.sort_serial = software ? 1 : 0;
  t.texel_loads = software ? 1 : 0;
  t.sort_local = software ? 8 : 256;
  t.sort_keys = software ? 4096 : 16;
  t.subgroups = default_subgroups(ctx.info());
  return t;
}

int pick(int set, int fallback) {
  return set > 0 ? set : fallback;
}

void require(bool ok, const char* field, int value, const char* expected) {
  if (!ok) {
    throw ArgumentError(
        fmt::format("gpgpu::set_primitive_tuning: {} = {}; expected {}", field, value, expected));
  }
}

bool power_of_two(int v) {
  return v > 0 && std::has_single_bit(static_cast<unsigned>(v));
}

// The device defaults with the stored shapes (store_primitive_tuning) over them.
PrimitiveTuning defaults_and_stored(const Context& ctx) {
  PrimitiveTuning d = device_defaults(ctx);
  const auto& s = stored_tuning(ctx);
  if (!s) return d;
  for (auto [field, value] : {std::pair{&d.reduce_local, s->reduce_local},
                              {&d.reduce_unroll, s->reduce_unroll},
                              {&d.reduce_max_trips, s->reduce_max_trips},
                              {&d.scan_local, s->scan_local},
                              {&d.scan_scalars, s->scan_scalars},
                              {&d.sort_local, s->sort_local},
                              {&d.sort_keys, s->sort_keys}}) {
    *field = pick(value, *field);
  }
  if (s->sort_serial >= 0) d.sort_serial = s->sort_serial;
  if (s->texel_loads >= 0) d.texel_loads = s->texel_loads;
  return d;
}

}  // namespace

PrimitiveTuning effective_tuning(const Context& ctx) {
  const PrimitiveTuning d = defaults_and_stored(ctx);
  const PrimitiveTuning& u = registry(ctx).tuning;
  PrimitiveTuning t;
  t.reduce_local = pick(u.reduce_local, d.reduce_local);
  t.reduce_unroll = pick(u.reduce_unroll, d.reduce_unroll);
  t.reduce_max_trips = pick(u.reduce_max_trips, d.reduce_max_trips);
  t.scan_local = pick(u.scan_local, d.scan_local);
  t.sort_serial = u.sort_serial >= 0 ? u.sort_serial : d.sort_serial;
  t.texel_loads = u.texel_loads >= 0 ? u.texel_loads : d.texel_loads;
  t.subgroups = u.subgroups >= 0 ? u.subgroups : d.subgroups;
  t.sort_onesweep = u.sort_onesweep >= 0 ? u.sort_onesweep : 0;
  // The subgroup scan keeps its scalars in registers: 32 per invocation halve the tiles (and
  // so the look-back's work) on GPUs.
  const bool gpu_subgroups = t.subgroups == 1 && !ctx.info().is_software;
  t.scan_scalars = pick(u.scan_scalars, gpu_subgroups ? 32 : d.scan_scalars);
  // The shape of the other sort variant when only the variant was asked for.
  const bool default_variant = t.sort_serial == d.sort_serial;
  t.sort_local = pick(u.sort_local, default_variant ? d.sort_local : (t.sort_serial ? 8 : 64));
  t.sort_keys = pick(u.sort_keys, default_variant ? d.sort_keys : (t.sort_serial ? 4096 : 16));
  return t;
}

}  // namespace gpgpu::primitives

namespace gpgpu {

void set_primitive_tuning(const Context& ctx, const PrimitiveTuning& t) {
  using primitives::require;
  const auto zero_or = [](int v, bool ok) { return v == 0 || ok; };
  require(zero_or(t.reduce_local, primitives::power_of_two(t.reduce_local) &&
                                      t.reduce_local >= 32 && t.reduce_local <= 1024),
          "reduce_local", t.reduce_local, "0 or a power of two in 32..1024");
  require(zero_or(t.reduce_unroll, t.reduce_unroll == 1 || t.reduce_unroll == 2 ||
                                       t.reduce_unroll == 4 || t.reduce_unroll == 8),
          "reduce_unroll", t.reduce_unroll, "0, 1, 2, 4 or 8");
  require(zero_or(t.reduce_max_trips, t.reduce_max_trips > 0 && t.reduce_max_trips <= 4096),
          "reduce_max_trips", t.reduce_max_trips, "0 or 1..4096");
  require(zero_or(t.scan_local, primitives::power_of_two(t.scan_local) && t.scan_local >= 32 &&
                                    t.scan_local <= 1024),
          "scan_local", t.scan_local, "0 or a power of two in 32..1024");
  require(zero_or(t.scan_scalars,
                  t.scan_scalars % 4 == 0 && t.scan_scalars >= 4 && t.scan_scalars <= 32),
          "scan_scalars", t.scan_scalars, "0 or a multiple of 4 in 4..32");
  require(t.sort_serial >= -1 && t.sort_serial <= 1, "sort_serial", t.sort_serial, "-1, 0 or 1");
  require(t.texel_loads >= -1 && t.texel_loads <= 1, "texel_loads", t.texel_loads, "-1, 0 or 1");
  require(t.subgroups >= -1 && t.subgroups <= 1, "subgroups", t.subgroups, "-1, 0 or 1");
  require(t.sort_onesweep >= -1 && t.sort_onesweep <= 1, "sort_onesweep", t.sort_onesweep,
          "-1, 0 or 1");
  if (t.subgroups == 1 && !primitives::native_subgroups(ctx.info()) &&
      primitives::emulated_subgroup_size(ctx.info()) == 0) {
    throw ArgumentError(fmt::format(
        "gpgpu::set_primitive_tuning: subgroups = 1, but {} has no GL_KHR_shader_subgroup with "
        "basic, vote, arithmetic, ballot and shuffle in compute shaders (subgroup size {}, "
        "features 0x{:x}) and does not run work groups as lockstep SIMD vectors, where they are "
        "emulated",
        ctx.info().renderer, ctx.info().subgroup_size, ctx.info().subgroup_features));
  }
  const bool serial = t.sort_serial == 1 || (t.sort_serial == -1 && ctx.info().is_software);
  if (serial) {
    require(zero_or(t.sort_local, t.sort_local >= 1 && t.sort_local <= 64), "sort_local",
            t.sort_local, "0 or 1..64 for the serial sort");
    require(zero_or(t.sort_keys, t.sort_keys >= 1 && t.sort_keys <= 8192), "sort_keys", t.sort_keys,
            "0 or 1..8192 for the serial sort");
  } else {
    require(
        zero_or(t.sort_local, t.sort_local % 32 == 0 && t.sort_local >= 32 && t.sort_local <= 512),
        "sort_local", t.sort_local, "0 or a multiple of 32 in 32..512 for the ranked sort");
    require(zero_or(t.sort_keys, t.sort_keys >= 16 && t.sort_keys <= 32), "sort_keys", t.sort_keys,
            "0 or 16..32 for the ranked sort");
  }
  // Shared memory: the scan's tile (padded) and per-invocation sums of up to vec4; the
  // ranked sort's tile and digit tables; the serial sort's 256 counters per invocation.
  const PrimitiveTuning e = [&] {
    auto& reg = primitives::registry(ctx);
    const PrimitiveTuning saved = reg.tuning;
    reg.tuning = t;
    const PrimitiveTuning effective = primitives::effective_tuning(ctx);
    reg.tuning = saved;
    return effective;
  }();
  const auto shared_limit = ctx.info().max_compute_shared_memory_size;
  const std::int64_t scan_bytes = 4 * (std::int64_t{e.scan_local} * e.scan_scalars * 33 / 32) +
                                  16 * std::int64_t{e.scan_local} + 1024;
  const primitives::Subgroups sg = primitives::subgroups_for(ctx.info(), e.subgroups);
  const std::int64_t sort_bytes =
      sg.on && e.sort_onesweep == 1
          ? primitives::onesweep_shared_bytes(primitives::onesweep_shape(e, sg), sg)
      : e.sort_serial ? 1024 * std::int64_t{e.sort_local}
                      : 4 * std::int64_t{e.sort_local} * e.sort_keys + 3200;
  if (scan_bytes > shared_limit || sort_bytes > shared_limit) {
    throw ArgumentError(fmt::format(
        "gpgpu::set_primitive_tuning: the scan needs {} and the sort {} bytes of shared memory "
        "per work group; the device has {}",
        scan_bytes, sort_bytes, shared_limit));
  }
  primitives::registry(ctx).tuning = t;
  primitives::registry(ctx).forget_recordings();  // they hold the old shapes' kernels
}

PrimitiveTuning primitive_tuning(const Context& ctx) {
  return primitives::effective_tuning(ctx);
}

}  // namespace gpgpu
