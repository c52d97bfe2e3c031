// gpgpu::sort / sort_by_key / argsort: LSD radix sort, 4 passes of 8 bits, alternating
// between the caller's Buffers and scratch and ending in the caller's. On the subgroup
// kernels the passes are Onesweep's (radix_onesweep.cpp). Otherwise a pass counts the digits
// of every tile (upsweep), scans the digit-major counts (exclusive_scan), then each tile
// ranks its keys in shared memory and writes every digit's run at its offset (downsweep).
#include <fmt/format.h>

#include <array>

#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "gpgpu/sequence.hpp"
#include "primitive_checks.hpp"
#include "primitive_registry.hpp"
#include "primitive_tuning.hpp"
#include "radix_onesweep.hpp"
#include "radix_sort_glsl.hpp"
#include "sort_plan.hpp"

namespace gpgpu {

namespace {

using primitives::PassBuffers;
using primitives::SortPlan;

struct SortCall {
  const Context* ctx;
  SortPlan plan;
  std::size_t count;
  std::size_t tiles;
  bool descending;
  Buffer* counts;
};

void run_pass(const SortCall& p, const PassBuffers& b, int shift) {
  auto& reg = primitives::registry(*p.ctx);
  const bool with_values = b.values_out != nullptr;
  const primitives::SortShape& shape = p.plan.shape;
  ComputeKernel& up = reg.kernel(*p.ctx, p.plan.up);
  ComputeKernel& down = reg.kernel(*p.ctx, p.plan.down);
  ComputeKernel* down_values = with_values && !p.plan.down_values.key.empty()
                                   ? &reg.kernel(*p.ctx, p.plan.down_values)
                                   : nullptr;
  // Serial: one invocation per tile, so a work group covers `local` tiles.
  const std::size_t groups = shape.serial ? (p.tiles + static_cast<std::size_t>(shape.local) - 1) /
                                                static_cast<std::size_t>(shape.local)
                                          : p.tiles;
  const Size3 grid = primitives::grid_for(*p.ctx, groups);
  const auto u32 = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
  reg.run(up,
          {{"keys_in", *b.keys_in},
           {"keys_texels", texels(*b.keys_in)},
           {"counts", *p.counts},
           {"in_first", u32(b.in_first)},
           {"count", u32(p.count)},
           {"tiles", u32(p.tiles)},
           {"shift", u32(static_cast<std::size_t>(shift))},
           {"descending", static_cast<std::int32_t>(p.descending)}},
          grid);
  exclusive_scan(*p.ctx, *p.counts, *p.counts, Op::Sum, {1, {0, 256 * p.tiles}, 0});
  Args args = {{"keys_in", *b.keys_in},
               {"keys_texels", texels(*b.keys_in)},
               {"keys_out", *b.keys_out},
               {"offsets", *p.counts},
               {"in_first", u32(b.in_first)},
               {"out_first", u32(b.out_first)},
               {"count", u32(p.count)},
               {"tiles", u32(p.tiles)},
               {"shift", u32(static_cast<std::size_t>(shift))},
               {"descending", static_cast<std::int32_t>(p.descending)}};
  if (with_values) {
    // values_in is bound even for iota (a kernel variant without it is not worth a program).
    const Buffer& values_in = b.iota ? *b.values_out : *b.values_in;
    args.insert(args.end(), {{"values_in", values_in},
                             {"values_texels", texels(values_in)},
                             {"values_out", *b.values_out},
                             {"vin_first", u32(b.vin_first)},
                             {"vout_first", u32(b.vout_first)},
                             {"iota_values", static_cast<std::int32_t>(b.iota)},
                             {"iota_base", u32(b.iota_base)}});
  }
  reg.run(down, args, grid);
  // Keys and values apart (too few storage blocks for both): the values' scatter ranks the
  // same keys again, which the keys' scatter did not change (it wrote elsewhere).
  if (down_values != nullptr) reg.run(*down_values, args, grid);
}

// Inside a caller's capture the ranked sort is planned: Onesweep's status codes alternate at
// every call, which a replay of the captured dispatches would not do (it would read the
// previous replay's words as this one's).
SortCall plan(const Context& ctx, ElementType key_type, std::size_t count, SortOrder order,
              bool with_values) {
  PrimitiveTuning tuning = primitives::effective_tuning(ctx);
  if (Sequence::capturing(ctx)) tuning.sort_onesweep = 0;
  SortCall p{&ctx,
             primitives::plan_sort(ctx.info(), tuning, key_type, with_values, count),
             count,
             0,
             order == SortOrder::Descending,
             nullptr};
  if (p.plan.onesweep) return p;  // no counts: the passes chain tiles
  const auto tile = static_cast<std::size_t>(p.plan.shape.tile());
  p.tiles = (count + tile - 1) / tile;
  p.counts =
      &primitives::registry(ctx).scratch(ctx, "sort.counts", ElementType::Uint32, 256 * p.tiles);
  return p;
}

// What a recorded sort depends on (Registry::replay_call): the count, order and kernels
// (their keys name the key type and shape), and each pass's Buffers and offsets.
std::string recording_key(const SortCall& p, const std::array<PassBuffers, 4>& passes) {
  const auto name = [](const Buffer* b) { return b == nullptr ? 0u : b->gl_name(); };
  std::string key =
      fmt::format("sort n{} d{} [{}] [{}] [{}] c{}", p.count, p.descending, p.plan.up.key,
                  p.plan.down.key, p.plan.down_values.key, name(p.counts));
  for (const auto& b : passes) {
    key += fmt::format(" | {}@{} {}@{} {}@{} {}@{} {} {}", name(b.keys_in), b.in_first,
                       name(b.keys_out), b.out_first, name(b.values_in), b.vin_first,
                       name(b.values_out), b.vout_first, b.iota, b.iota_base);
  }
  return key;
}

// The four digit passes: Onesweep on the subgroup kernels, else count, scan and scatter,
// replayed from a recording after the first call with the same Buffers.
void run_passes(const SortCall& p, const std::array<PassBuffers, 4>& passes) {
  if (p.plan.onesweep) {
    primitives::onesweep_sort(*p.ctx, p.plan, p.count, p.descending, passes);
    return;
  }
  primitives::registry(*p.ctx).replay_call(*p.ctx, recording_key(p, passes), [&] {
    for (int pass = 0; pass < 4; ++pass) run_pass(p, passes[pass], 8 * pass);
  });
}

void check_keys(const Context& ctx, const Buffer& keys, const char* fn) {
  primitives::check_buffer(ctx, keys, fn, "keys");
}

}  // namespace

void sort(const Context& ctx, Buffer& keys, SortOrder order, Range range) {
  const char* fn = "sort";
  check_keys(ctx, keys, fn);
  const auto r = primitives::resolve_range(keys, range, 1, fn, "keys");
  primitives::check_index_range(r.first + r.count, fn, "keys");
  if (r.count <= 1) return;
  const SortCall p = plan(ctx, keys.element_type(), r.count, order, false);
  Buffer& other = primitives::registry(ctx).scratch(ctx, "sort.keys", keys.element_type(), r.count);
  std::array<PassBuffers, 4> passes;
  for (int pass = 0; pass < 4; ++pass) {
    const bool forward = pass % 2 == 0;  // keys -> scratch on even passes, back on odd ones
    passes[pass] = {forward ? &keys : &other, forward ? r.first : 0, forward ? &other : &keys,
                    forward ? 0 : r.first};
  }
  run_passes(p, passes);
}

void sort_by_key(const Context& ctx, Buffer& keys, Buffer& values, SortOrder order, Range range) {
  const char* fn = "sort_by_key";
  check_keys(ctx, keys, fn);
  primitives::check_buffer(ctx, values, fn, "values");
  primitives::check_type(values, ElementType::Uint32, fn, "values");
  const auto r = primitives::resolve_range(keys, range, 1, fn, "keys");
  primitives::check_room(values, r.first, r.count, fn, "values");
  primitives::check_index_range(r.first + r.count, fn, "keys");
  if (r.count <= 1) return;
  const SortCall p = plan(ctx, keys.element_type(), r.count, order, true);
  auto& reg = primitives::registry(ctx);
  Buffer& other_keys = reg.scratch(ctx, "sort.keys", keys.element_type(), r.count);
  Buffer& other_values = reg.scratch(ctx, "sort.values", ElementType::Uint32, r.count);
  std::array<PassBuffers, 4> passes;
  for (int pass = 0; pass < 4; ++pass) {
    const bool forward = pass % 2 == 0;
    PassBuffers& b = passes[pass];
    b = {forward ? &keys : &other_keys, forward ? r.first : 0, forward ? &other_keys : &keys,
         forward ? 0 : r.first};
    b.values_in = forward ? &values : &other_values;
    b.vin_first = forward ? r.first : 0;
    b.values_out = forward ? &other_values : &values;
    b.vout_first = forward ? 0 : r.first;
  }
  run_passes(p, passes);
}

void argsort(const Context& ctx, const Buffer& keys, Buffer& indices, SortOrder order,
             Range range) {
  const char* fn = "argsort";
  check_keys(ctx, keys, fn);
  primitives::check_buffer(ctx, indices, fn, "indices");
  primitives::check_type(indices, ElementType::Uint32, fn, "indices");
  const auto r = primitives::resolve_range(keys, range, 1, fn, "keys");
  primitives::check_room(indices, 0, r.count, fn, "indices");
  primitives::check_index_range(r.first + r.count, fn, "keys");
  if (r.count == 0) return;
  const SortCall p = plan(ctx, keys.element_type(), r.count, order, true);
  auto& reg = primitives::registry(ctx);
  // Keys: keys -> a -> b -> a -> b (the caller's keys are only read); values: generated in
  // pass 0 into `v`, then v -> indices -> v -> indices.
  Buffer& a = reg.scratch(ctx, "sort.keys", keys.element_type(), r.count);
  Buffer& b = reg.scratch(ctx, "argsort.keys", keys.element_type(), r.count);
  Buffer& v = reg.scratch(ctx, "sort.values", ElementType::Uint32, r.count);
  std::array<PassBuffers, 4> passes;
  for (int pass = 0; pass < 4; ++pass) {
    PassBuffers& pb = passes[pass];
    pb = {pass == 0 ? &keys : (pass % 2 == 1 ? &a : &b), pass == 0 ? r.first : 0,
          pass % 2 == 0 ? &a : &b, 0};
    pb.values_in = pass % 2 == 0 ? &indices : &v;
    pb.values_out = pass % 2 == 0 ? &v : &indices;
    pb.iota = pass == 0;
    pb.iota_base = r.first;
  }
  run_passes(p, passes);
}

template <class T>
void sort(const Context& ctx, std::span<T> keys, SortOrder order) {
  if (keys.size() <= 1) return;
  Buffer b = Buffer::from(ctx, std::span<const T>(keys));
  sort(ctx, b, order);
  b.download(keys);
}

template <class T>
void sort_by_key(const Context& ctx, std::span<T> keys, std::span<std::uint32_t> values,
                 SortOrder order) {
  if (values.size() != keys.size()) {
    throw SizeMismatchError(
        fmt::format("gpgpu::sort_by_key: {} keys but {} values", keys.size(), values.size()));
  }
  if (keys.size() <= 1) return;
  Buffer k = Buffer::from(ctx, std::span<const T>(keys));
  Buffer v = Buffer::from(ctx, std::span<const std::uint32_t>(values));
  sort_by_key(ctx, k, v, order);
  std::vector<T> sorted_keys = k.to_vector<T>();
  std::vector<std::uint32_t> sorted_values = v.to_vector<std::uint32_t>();
  std::copy(sorted_keys.begin(), sorted_keys.end(), keys.begin());  // both read back: commit
  std::copy(sorted_values.begin(), sorted_values.end(), values.begin());
}

template <class T>
std::vector<std::uint32_t> argsort(const Context& ctx, std::span<const T> keys, SortOrder order) {
  if (keys.empty()) return {};
  const Buffer k = Buffer::from(ctx, keys);
  Buffer indices(ctx, ElementType::Uint32, keys.size());
  argsort(ctx, k, indices, order);
  return indices.to_vector<std::uint32_t>();
}

#define GPGPU_INSTANTIATE_SORT(T)                                                                  \
  template void sort<T>(const Context&, std::span<T>, SortOrder);                                  \
  template void sort_by_key<T>(const Context&, std::span<T>, std::span<std::uint32_t>, SortOrder); \
  template std::vector<std::uint32_t> argsort<T>(const Context&, std::span<const T>, SortOrder);
GPGPU_INSTANTIATE_SORT(float)
GPGPU_INSTANTIATE_SORT(std::int32_t)
GPGPU_INSTANTIATE_SORT(std::uint32_t)
#undef GPGPU_INSTANTIATE_SORT

}  // namespace gpgpu
