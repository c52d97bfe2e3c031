#include "primitive_tuning.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <string>

#include "device_fit.hpp"
#include "gpgpu/error.hpp"
#include "primitive_registry.hpp"
#include "radix_onesweep.hpp"
#include "radix_sort_glsl.hpp"
#include "reduce_glsl.hpp"
#include "scan_glsl.hpp"
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
PrimitiveTuning device_defaults(const DeviceInfo& info) {
  PrimitiveTuning t;
  const bool software = info.is_software;
  t.reduce_local = software ? 64 : 256;
  t.reduce_unroll = 4;
  t.reduce_max_trips = software ? 1024 : 32;
  t.scan_local = software ? 64 : 256;
  t.scan_scalars = 16;
  t.sort_serial = software ? 1 : 0;
  t.texel_loads = software ? 1 : 0;
  t.sort_local = software ? 8 : 256;
  t.sort_keys = software ? 4096 : 16;
  // Onesweep: 2 tiles of 512 x 11 keys (23 KiB each) per SM of an H200, whose GL driver gives
  // compute work 48 KiB of shared memory per SM (docs/primitives-internals.md).
  t.onesweep_local = software ? 64 : 512;
  t.onesweep_keys = software ? 16 : 11;
  t.subgroups = default_subgroups(info);
  return t;
}

int pick(int set, int fallback) {
  return set > 0 ? set : fallback;
}

// The device defaults with the stored shapes (store_primitive_tuning) over them.
PrimitiveTuning defaults_and_stored(const DeviceInfo& info,
                                    const std::optional<PrimitiveTuning>& s) {
  PrimitiveTuning d = device_defaults(info);
  if (!s) return d;
  for (auto [field, value] : {std::pair{&d.reduce_local, s->reduce_local},
                              {&d.reduce_unroll, s->reduce_unroll},
                              {&d.reduce_max_trips, s->reduce_max_trips},
                              {&d.scan_local, s->scan_local},
                              {&d.scan_scalars, s->scan_scalars},
                              {&d.sort_local, s->sort_local},
                              {&d.sort_keys, s->sort_keys},
                              {&d.onesweep_local, s->onesweep_local},
                              {&d.onesweep_keys, s->onesweep_keys}}) {
    *field = pick(value, *field);
  }
  if (s->sort_serial >= 0) d.sort_serial = s->sort_serial;
  if (s->texel_loads >= 0) d.texel_loads = s->texel_loads;
  return d;
}

// Shapes of `t` that `user` did not set, shrunk until the device's work groups and shared
// memory hold them (the user's were checked by set_primitive_tuning).
PrimitiveTuning fit_to_device(const DeviceInfo& info, PrimitiveTuning t,
                              const PrimitiveTuning& user) {
  const DeviceFit fit = device_fit(info);
  if (user.reduce_local == 0) {
    t.reduce_local = fit_local(t.reduce_local, fit);
    while (t.reduce_local > 32 && reduce_shared_need(t.reduce_local) > fit.shared_bytes) {
      t.reduce_local /= 2;
    }
  }
  if (user.scan_local == 0) t.scan_local = fit_local(t.scan_local, fit);
  while (scan_shared_need(t) > fit.shared_bytes) {
    if (user.scan_scalars == 0 && t.scan_scalars > 4) {
      t.scan_scalars -= 4;
    } else if (user.scan_local == 0 && t.scan_local > 32) {
      t.scan_local /= 2;
    } else {
      break;
    }
  }
  if (user.sort_local == 0) {
    // Serial: any count of invocations; ranked: whole multiples of 32.
    const int most = t.sort_serial == 1 ? fit.invocations : std::max(32, fit.invocations / 32 * 32);
    t.sort_local = std::min(t.sort_local, most);
    while (sort_shared_need(t) > fit.shared_bytes && t.sort_local > (t.sort_serial == 1 ? 1 : 32)) {
      t.sort_local = t.sort_serial == 1 ? t.sort_local / 2 : std::max(32, t.sort_local / 64 * 32);
    }
  }
  const Subgroups sg = subgroups_for(info, t.subgroups);
  if (user.onesweep_local == 0 && sg.on) {  // Onesweep runs on the subgroup kernels only
    t.onesweep_local = std::min(t.onesweep_local, std::max(32, fit.invocations / 32 * 32));
    while (onesweep_shared_bytes(onesweep_shape(t, sg), sg) > fit.shared_bytes &&
           t.onesweep_local > 32) {
      t.onesweep_local = std::max(32, t.onesweep_local / 64 * 32);
    }
  }
  return t;
}

}  // namespace

std::int64_t scan_shared_need(const PrimitiveTuning& t) {
  std::int64_t most = 0;
  for (int components = 1; components <= 4; ++components) {
    const ScanShape shape = scan_shape(t, components);
    for (ScanMode mode : {ScanMode::TileReduce, ScanMode::TileDownsweep, ScanMode::LookBack}) {
      most = std::max(most, scan_shared_bytes(shape, components, mode));
    }
  }
  return most;
}

std::int64_t sort_shared_need(const PrimitiveTuning& t) {
  return sort_shared_bytes(sort_shape(t));
}

PrimitiveTuning effective_tuning(const DeviceInfo& info, const PrimitiveTuning& u,
                                 const std::optional<PrimitiveTuning>& stored) {
  const PrimitiveTuning d = defaults_and_stored(info, stored);
  PrimitiveTuning t;
  t.reduce_local = pick(u.reduce_local, d.reduce_local);
  t.reduce_unroll = pick(u.reduce_unroll, d.reduce_unroll);
  t.reduce_max_trips = pick(u.reduce_max_trips, d.reduce_max_trips);
  t.sort_serial = u.sort_serial >= 0 ? u.sort_serial : d.sort_serial;
  t.texel_loads = u.texel_loads >= 0 ? u.texel_loads : d.texel_loads;
  t.subgroups = u.subgroups >= 0 ? u.subgroups : d.subgroups;
  // The subgroup scan on GPUs keeps its scalars in registers. Tiles of 512 invocations of 16
  // scalars ran 1.16-1.27x faster than 256 x 32 (the same tile) on an H200 at 2^24..2^28; of
  // the other shapes timed (256 x 16, 512 x 8 and 24, 1024 x 8 and 16) none was faster at
  // every size (docs/primitives-internals.md, "Tuning"). A stored shape wins.
  // Onesweep sorts 1.2-1.3x faster than the ranked sort there (docs/primitives.md), and on
  // llvmpipe the serial sort is the default.
  const bool gpu_subgroups = t.subgroups == 1 && !info.is_software;
  const auto scan_default = [&](int stored_value, int subgroup_gpu_value, int device_value) {
    return stored_value > 0 || !gpu_subgroups ? device_value : subgroup_gpu_value;
  };
  t.scan_local =
      pick(u.scan_local, scan_default(stored ? stored->scan_local : 0, 512, d.scan_local));
  t.scan_scalars =
      pick(u.scan_scalars, scan_default(stored ? stored->scan_scalars : 0, 16, d.scan_scalars));
  t.sort_onesweep = u.sort_onesweep >= 0 ? u.sort_onesweep : (gpu_subgroups ? 1 : 0);
  // The shape of the other sort variant when only the variant was asked for.
  const bool default_variant = t.sort_serial == d.sort_serial;
  t.sort_local = pick(u.sort_local, default_variant ? d.sort_local : (t.sort_serial ? 8 : 64));
  t.sort_keys = pick(u.sort_keys, default_variant ? d.sort_keys : (t.sort_serial ? 4096 : 16));
  t.onesweep_local = pick(u.onesweep_local, d.onesweep_local);
  t.onesweep_keys = pick(u.onesweep_keys, d.onesweep_keys);
  return fit_to_device(info, t, u);
}

PrimitiveTuning effective_tuning(const Context& ctx) {
  return effective_tuning(ctx.info(), registry(ctx).tuning, stored_tuning(ctx));
}

}  // namespace gpgpu::primitives

namespace gpgpu {

namespace {

void require(bool ok, const char* field, int value, const char* expected) {
  if (!ok) {
    throw ArgumentError(
        fmt::format("gpgpu::set_primitive_tuning: {} = {}; expected {}", field, value, expected));
  }
}

bool power_of_two(int v) {
  return v > 0 && std::has_single_bit(static_cast<unsigned>(v));
}

void check_ranges(const Context& ctx, const PrimitiveTuning& t) {
  const auto zero_or = [](int v, bool ok) { return v == 0 || ok; };
  require(zero_or(t.reduce_local,
                  power_of_two(t.reduce_local) && t.reduce_local >= 32 && t.reduce_local <= 1024),
          "reduce_local", t.reduce_local, "0 or a power of two in 32..1024");
  require(zero_or(t.reduce_unroll, t.reduce_unroll == 1 || t.reduce_unroll == 2 ||
                                       t.reduce_unroll == 4 || t.reduce_unroll == 8),
          "reduce_unroll", t.reduce_unroll, "0, 1, 2, 4 or 8");
  require(zero_or(t.reduce_max_trips, t.reduce_max_trips > 0 && t.reduce_max_trips <= 4096),
          "reduce_max_trips", t.reduce_max_trips, "0 or 1..4096");
  require(zero_or(t.scan_local,
                  power_of_two(t.scan_local) && t.scan_local >= 32 && t.scan_local <= 1024),
          "scan_local", t.scan_local, "0 or a power of two in 32..1024");
  require(zero_or(t.scan_scalars,
                  t.scan_scalars % 4 == 0 && t.scan_scalars >= 4 && t.scan_scalars <= 32),
          "scan_scalars", t.scan_scalars, "0 or a multiple of 4 in 4..32");
  require(t.sort_serial >= -1 && t.sort_serial <= 1, "sort_serial", t.sort_serial, "-1, 0 or 1");
  require(t.texel_loads >= -1 && t.texel_loads <= 1, "texel_loads", t.texel_loads, "-1, 0 or 1");
  require(t.subgroups >= -1 && t.subgroups <= 1, "subgroups", t.subgroups, "-1, 0 or 1");
  require(t.sort_onesweep >= -1 && t.sort_onesweep <= 1, "sort_onesweep", t.sort_onesweep,
          "-1, 0 or 1");
  require(zero_or(t.onesweep_local,
                  t.onesweep_local % 32 == 0 && t.onesweep_local >= 32 && t.onesweep_local <= 512),
          "onesweep_local", t.onesweep_local, "0 or a multiple of 32 in 32..512");
  require(zero_or(t.onesweep_keys, t.onesweep_keys >= 8 && t.onesweep_keys <= 32), "onesweep_keys",
          t.onesweep_keys, "0 or 8..32");
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
}

// " (GL_MAX_..., under the device-limit profile NAME)".
std::string limit_note(const DeviceInfo& info, const char* limit) {
  return info.limit_profile.empty()
             ? fmt::format(" ({})", limit)
             : fmt::format(" ({} under the device-limit profile {})", limit, info.limit_profile);
}

// The work groups the user asked for fit the device's.
void check_work_groups(const DeviceInfo& info, const PrimitiveTuning& t) {
  const int invocations = primitives::device_fit(info).invocations;
  for (auto [field, value] : {std::pair{"reduce_local", t.reduce_local},
                              {"scan_local", t.scan_local},
                              {"sort_local", t.sort_local},
                              {"onesweep_local", t.onesweep_local}}) {
    if (value > invocations) {
      throw ArgumentError(fmt::format(
          "gpgpu::set_primitive_tuning: {} = {}; this device runs at most {} invocations per "
          "work group{}",
          field, value, invocations, limit_note(info, "GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS")));
    }
  }
}

// The scan's tile (padded) and per-invocation sums of up to vec4; the ranked sort's tile and
// digit tables, or the serial sort's 256 counters per invocation; Onesweep's tile, counters
// and tables when it is asked for.
void check_shared_memory(const Context& ctx, const PrimitiveTuning& t) {
  const PrimitiveTuning e =
      primitives::effective_tuning(ctx.info(), t, primitives::stored_tuning(ctx));
  const auto shared_limit = ctx.info().max_compute_shared_memory_size;
  const std::int64_t scan_bytes = primitives::scan_shared_need(e);
  const primitives::Subgroups sg = primitives::subgroups_for(ctx.info(), e.subgroups);
  const std::int64_t sort_bytes =
      sg.on && e.sort_onesweep == 1
          ? primitives::onesweep_shared_bytes(primitives::onesweep_shape(e, sg), sg)
          : primitives::sort_shared_need(e);
  if (scan_bytes > shared_limit || sort_bytes > shared_limit) {
    throw ArgumentError(fmt::format(
        "gpgpu::set_primitive_tuning: the scan needs {} and the sort {} bytes of shared memory "
        "per work group; the device has {}{}",
        scan_bytes, sort_bytes, shared_limit,
        limit_note(ctx.info(), "GL_MAX_COMPUTE_SHARED_MEMORY_SIZE")));
  }
}

}  // namespace

void set_primitive_tuning(const Context& ctx, const PrimitiveTuning& t) {
  check_ranges(ctx, t);
  check_work_groups(ctx.info(), t);
  check_shared_memory(ctx, t);
  primitives::registry(ctx).tuning = t;
  primitives::registry(ctx).forget_recordings();  // they hold the old shapes' kernels
}

PrimitiveTuning primitive_tuning(const Context& ctx) {
  return primitives::effective_tuning(ctx);
}

}  // namespace gpgpu
