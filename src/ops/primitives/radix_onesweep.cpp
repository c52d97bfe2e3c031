#include "radix_onesweep.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "histogram_glsl.hpp"
#include "primitive_registry.hpp"
#include "primitive_tuning.hpp"
#include "radix_sort_glsl.hpp"
#include "reduce_plan.hpp"
#include "subgroup_glsl.hpp"

namespace gpgpu::primitives {

namespace {

// The status words of the four passes: `slots` per pass, from the Buffer's size. Slots the
// previous call did not write may hold an older call's codes of this call's parity: they are
// cleared here (zeros read as not ready in either parity).
struct Status {
  Buffer* words;
  std::uint32_t slots;
  std::uint32_t code_a, code_p;
};

Status prepare_status(const Context& ctx, std::size_t tiles) {
  auto& reg = registry(ctx);
  bool fresh = false;
  Buffer& words =
      reg.zeroed_scratch(ctx, "sort.os_status", ElementType::Uint32, 4 * 256 * (tiles + 1), fresh);
  const auto slots = static_cast<std::uint32_t>(words.size() / (4 * 256));
  std::size_t& written = reg.value("sort.os_written");
  if (fresh) written = 0;
  if (tiles + 1 > written) {
    ComputeKernel& clear = reg.kernel(ctx, clear_kernel(ctx.info()));
    for (std::uint32_t pass = 0; pass < 4; ++pass) {
      const std::size_t n = 256 * (tiles + 1 - written);
      clear.run({{"counts", words},
                 {"out_offset", static_cast<std::uint32_t>(256 * (pass * slots + written))},
                 {"n", static_cast<std::uint32_t>(n)}},
                n);
    }
  }
  written = tiles + 1;
  const std::uint32_t parity = reg.next_count("sort.os_calls") & 1u;
  return {&words, slots, 1 + 2 * parity, 2 + 2 * parity};
}

void run_histogram(const Context& ctx, ComputeKernel& k, int histogram_local, std::size_t count,
                   bool descending, const PassBuffers& first, const Status& st) {
  auto& reg = registry(ctx);
  bool fresh = false;
  Buffer& totals = reg.zeroed_scratch(ctx, "sort.os_totals", ElementType::Uint32, 1024, fresh);
  Buffer& done = reg.zeroed_scratch(ctx, "sort.os_done", ElementType::Uint32, 1, fresh);
  const std::size_t groups = std::clamp<std::size_t>(
      (count + static_cast<std::size_t>(histogram_local) * 16 - 1) /
          (static_cast<std::size_t>(histogram_local) * 16),
      1,
      std::min(resident_groups(ctx, histogram_local),
               static_cast<std::size_t>(ctx.info().max_compute_work_group_count[0])));
  const std::size_t chunk = (count + groups - 1) / groups;
  reg.run(k,
          {{"keys_in", *first.keys_in},
           {"totals", totals},
           {"status", *st.words},
           {"done_count", done},
           {"in_first", static_cast<std::uint32_t>(first.in_first)},
           {"count", static_cast<std::uint32_t>(count)},
           {"chunk", static_cast<std::uint32_t>(chunk)},
           {"descending", static_cast<std::int32_t>(descending)},
           {"slots", st.slots},
           {"code_a", st.code_a},
           {"code_p", st.code_p}},
          {(count + chunk - 1) / chunk, 1, 1});
}

}  // namespace

// Onesweep's own tile (onesweep_local x onesweep_keys), the group a whole number of subgroups;
// its defaults are in device_defaults (primitive_tuning.cpp).
SortShape onesweep_shape(const PrimitiveTuning& t, const Subgroups& sg) {
  SortShape s;
  s.local = subgroup_local(t.onesweep_local, sg);
  s.keys = t.onesweep_keys;
  return s;
}

// The tile's words (onesweep_tile_words), the digit offsets (the first of which hands out the
// tile number), and the subgroup layer's arrays.
std::int64_t onesweep_shared_bytes(const SortShape& shape, const Subgroups& sg) {
  return 4 * (onesweep_tile_words(shape, sg) + 256) + subgroup_shared_bytes(sg, shape.local);
}

void onesweep_sort(const Context& ctx, const SortPlan& plan, std::size_t count, bool descending,
                   const std::array<PassBuffers, 4>& passes) {
  auto& reg = registry(ctx);
  const SortShape& shape = plan.shape;
  const auto tile = static_cast<std::size_t>(shape.local * shape.keys);
  const std::size_t tiles = (count + tile - 1) / tile;
  // Every kernel is compiled before the status words change: a failed compile leaves them
  // as the previous call left them.
  ComputeKernel& histogram = reg.kernel(ctx, plan.histogram);
  ComputeKernel& k = reg.kernel(ctx, plan.pass);
  bool fresh = false;
  Buffer& counter = reg.zeroed_scratch(ctx, "sort.os_counter", ElementType::Uint32, 1, fresh);
  const Status st = prepare_status(ctx, tiles);
  run_histogram(ctx, histogram, plan.histogram_local, count, descending, passes[0], st);
  const auto u32 = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
  for (std::uint32_t pass = 0; pass < 4; ++pass) {
    const PassBuffers& b = passes[pass];
    Args args = {{"keys_in", *b.keys_in},
                 {"keys_out", *b.keys_out},
                 {"status", *st.words},
                 {"tile_counter", counter},
                 {"in_first", u32(b.in_first)},
                 {"out_first", u32(b.out_first)},
                 {"count", u32(count)},
                 {"tiles", u32(tiles)},
                 {"pass", pass},
                 {"shift", 8 * pass},
                 {"descending", static_cast<std::int32_t>(descending)},
                 {"slots", st.slots},
                 {"code_a", st.code_a},
                 {"code_p", st.code_p},
                 // Software devices never wait for another tile (llvmpipe's loop budget).
                 {"spin_limit", ctx.info().is_software ? 1u : 2048u}};
    if (b.values_out != nullptr) {
      // values_in is bound even for iota (a kernel variant without it is not worth a program).
      const Buffer& values_in = b.iota ? *b.values_out : *b.values_in;
      args.insert(args.end(), {{"values_in", values_in},
                               {"values_out", *b.values_out},
                               {"vin_first", u32(b.vin_first)},
                               {"vout_first", u32(b.vout_first)},
                               {"iota_values", static_cast<std::int32_t>(b.iota)},
                               {"iota_base", u32(b.iota_base)}});
    }
    reg.run(k, args, grid_for(ctx, tiles));
  }
}

}  // namespace gpgpu::primitives
