// gpgpu::inclusive_scan / exclusive_scan: validate, plan tiles, then either one look-back
// pass or reduce-then-scan (tile totals, a one-group scan of them, the tiles).
#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "glsl_ops.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitive_checks.hpp"
#include "primitive_registry.hpp"
#include "primitive_tuning.hpp"
#include "scan_glsl.hpp"
#include "scan_plan.hpp"
#include "subgroup_glsl.hpp"
#include "tile_flags.hpp"

namespace gpgpu {

namespace {

using primitives::ScalarRange;
using primitives::ScanPath;
using primitives::ScanPlan;

struct ScanCall {
  const Buffer* in;
  Buffer* out;
  ScalarRange range;
  std::size_t out_first;  // scalar
  int components;
  bool inclusive;
};

ScanPlan plan_for(const Context& ctx, ElementType type, int components, const Operator& op,
                  ScanAlgorithm algorithm, std::size_t texels) {
  return primitives::plan_scan(ctx.info(), primitives::effective_tuning(ctx), type, components, op,
                               algorithm, texels);
}

Args tile_args(const ScanCall& c, const Buffer& tile_values, std::size_t tiles, bool vec4_io) {
  return {{"in4", *c.in},
          {"in1", *c.in},
          {"out4", *c.out},
          {"out1", *c.out},
          {"tile_values", tile_values},
          {"in_first", static_cast<std::uint32_t>(c.range.first)},
          {"out_first", static_cast<std::uint32_t>(c.out_first)},
          {"total", static_cast<std::uint32_t>(c.range.count)},
          {"tiles", static_cast<std::uint32_t>(tiles)},
          {"vec4_io", static_cast<std::int32_t>(vec4_io)},
          {"inclusive", static_cast<std::int32_t>(c.inclusive)}};
}

std::size_t tiles_of(const ScanPlan& p, std::size_t scalars) {
  const auto tile = static_cast<std::size_t>(p.shape.local * p.shape.scalars);
  return (scalars + tile - 1) / tile;
}

void single_pass(const Context& ctx, const ScanCall& c, const ScanPlan& p, bool vec4_io) {
  auto& reg = primitives::registry(ctx);
  const std::size_t tiles = tiles_of(p, c.range.count);
  const auto comps = static_cast<std::size_t>(c.components);
  Buffer& values = reg.scratch(ctx, "scan.tile_values", c.in->element_type(), 2 * tiles * comps);
  const primitives::TileFlags f = primitives::tile_flags(ctx, tiles);
  Args args = tile_args(c, values, tiles, vec4_io);
  args.emplace_back("tile_flags", *f.flags);
  args.emplace_back("epoch", f.epoch);
  reg.run(reg.kernel(ctx, p.pass), args, primitives::grid_for(ctx, tiles));
}

// Scalars with a built-in operator on the subgroup kernels: one pass (scan_subgroup_source).
// A software device never waits for another tile (spin_limit 1: a tile that is not ready
// is reduced at once), which bounds the loops as llvmpipe needs.
void subgroup_single_pass(const Context& ctx, const ScanCall& c, const ScanPlan& p, bool vec4_io) {
  auto& reg = primitives::registry(ctx);
  const auto tile = static_cast<std::size_t>(p.sg_local) * static_cast<std::size_t>(p.vec4s) * 4;
  const std::size_t tiles = (c.range.count + tile - 1) / tile;
  const primitives::TileFlags f =
      primitives::tile_flags(ctx, tiles, primitives::TileWordKind::Packed);
  ComputeKernel& k = reg.kernel(ctx, p.pass);
  Args args = primitives::input_args(*c.in);
  const bool in_place = c.in->gl_name() == c.out->gl_name();
  args.insert(args.end(), {{"out4", *c.out},
                           {"out1", *c.out},
                           {"tile_words", *f.flags},
                           {"in_first", static_cast<std::uint32_t>(c.range.first)},
                           {"out_first", static_cast<std::uint32_t>(c.out_first)},
                           {"total", static_cast<std::uint32_t>(c.range.count)},
                           {"tiles", static_cast<std::uint32_t>(tiles)},
                           {"vec4_io", static_cast<std::int32_t>(vec4_io)},
                           {"inclusive", static_cast<std::int32_t>(c.inclusive)},
                           {"in_place", static_cast<std::int32_t>(in_place)},
                           {"epoch", f.epoch},
                           {"spin_limit", ctx.info().is_software ? 1u : 4096u}});
  reg.run(k, args, primitives::grid_for(ctx, tiles));
}

void reduce_then_scan(const Context& ctx, const ScanCall& c, const ScanPlan& p, bool vec4_io) {
  auto& reg = primitives::registry(ctx);
  const std::size_t tiles = tiles_of(p, c.range.count);
  const auto comps = static_cast<std::size_t>(c.components);
  Buffer& values = reg.scratch(ctx, "scan.tile_values", c.in->element_type(), tiles * comps);
  const Args args = tile_args(c, values, tiles, vec4_io);
  const Size3 grid = primitives::grid_for(ctx, tiles);
  if (tiles > 1) {
    reg.run(reg.kernel(ctx, p.totals), args, grid);
    const auto local = static_cast<std::size_t>(p.shape.local);
    const auto per_thread = static_cast<std::uint32_t>((tiles + local - 1) / local);
    Args small = args;
    small.emplace_back("per_thread", per_thread);
    reg.run(reg.kernel(ctx, p.small), small, {1, 1, 1});
  } else {
    // One tile: its exclusive prefix is the identity; the small scan writes exactly that.
    Args small = args;
    small.emplace_back("per_thread", std::uint32_t{1});
    reg.run(reg.kernel(ctx, p.small), small, {1, 1, 1});
  }
  reg.run(reg.kernel(ctx, p.pass), args, grid);
}

// Elements per invocation of the serial scan: runs long enough to amortise the passes,
// enough of them to keep the CPU threads busy, and short enough for llvmpipe's loop budget
// (65535 trips per invocation, all loops together; a run of 8192 takes at most ~10000).
std::size_t serial_chunk(std::size_t elements) {
  const std::size_t chunk = std::max<std::size_t>(256, (elements + 511) / 512);
  return std::min<std::size_t>((chunk + 3) / 4 * 4, 8192);
}

void serial_reduce_then_scan(const Context& ctx, const ScanCall& c, const ScanPlan& p,
                             bool vec4_io) {
  auto& reg = primitives::registry(ctx);
  const auto comps = static_cast<std::size_t>(c.components);
  const std::size_t elements = c.range.count / comps;
  const std::size_t chunk = serial_chunk(elements);
  const std::size_t tiles = (elements + chunk - 1) / chunk;
  Buffer& values = reg.scratch(ctx, "scan.tile_values", c.in->element_type(), tiles * comps);
  Args args = primitives::input_args(*c.in);
  args.insert(args.end(), {{"out4", *c.out},
                           {"out1", *c.out},
                           {"tile_values", values},
                           {"in_first", static_cast<std::uint32_t>(c.range.first)},
                           {"out_first", static_cast<std::uint32_t>(c.out_first)},
                           {"count", static_cast<std::uint32_t>(elements)},
                           {"chunk", static_cast<std::uint32_t>(chunk)},
                           {"tiles", static_cast<std::uint32_t>(tiles)},
                           {"vec4_io", static_cast<std::int32_t>(vec4_io)},
                           {"inclusive", static_cast<std::int32_t>(c.inclusive)}});
  const auto local = static_cast<std::size_t>(p.shape.local);
  const Size3 grid = primitives::grid_for(ctx, (tiles + local - 1) / local);
  if (tiles > 1) reg.run(reg.kernel(ctx, p.totals), args, grid);
  const Args small = {{"tile_values", values},
                      {"tiles", static_cast<std::uint32_t>(tiles)},
                      {"per_thread", static_cast<std::uint32_t>((tiles + local - 1) / local)}};
  reg.run(reg.kernel(ctx, p.small), small, {1, 1, 1});
  reg.run(reg.kernel(ctx, p.pass), args, grid);
}

void scan(const Context& ctx, const Buffer& in, Buffer& out, const Operator& op,
          const ScanOptions& o, bool inclusive) {
  const char* fn = inclusive ? "inclusive_scan" : "exclusive_scan";
  primitives::check_buffer(ctx, in, fn, "in");
  primitives::check_buffer(ctx, out, fn, "out");
  primitives::check_components(o.components, fn);
  primitives::check_type(out, in.element_type(), fn, "out");
  const ScalarRange r = primitives::resolve_range(in, o.range, o.components, fn, "in");
  const std::size_t out_first = o.out_first * static_cast<std::size_t>(o.components);
  primitives::check_room(out, out_first, r.count, fn, "out");
  primitives::check_index_range(std::max(r.first, out_first) + r.count, fn, "in");
  if (r.count == 0) return;

  const ScanPlan p = plan_for(ctx, in.element_type(), o.components, op, o.algorithm, in.size());
  const bool vec4_io = r.first % 4 == 0 && out_first % 4 == 0;
  const ScanCall call{&in, &out, r, out_first, o.components, inclusive};
  // Replayed from a recording after the first call with the same Buffers and kernels.
  const std::string key = fmt::format("scan {} {} {}+{} {} c{} i{} [{}] [{}] [{}]", in.gl_name(),
                                      out.gl_name(), r.first, r.count, out_first, o.components,
                                      inclusive, p.totals.key, p.small.key, p.pass.key);
  primitives::registry(ctx).replay_call(ctx, key, [&] {
    switch (p.path) {
      case ScanPath::Subgroup:
        subgroup_single_pass(ctx, call, p, vec4_io);
        break;
      case ScanPath::SinglePass:
        single_pass(ctx, call, p, vec4_io);
        break;
      case ScanPath::Serial:
        serial_reduce_then_scan(ctx, call, p, vec4_io);
        break;
      case ScanPath::ReduceThenScan:
        reduce_then_scan(ctx, call, p, vec4_io);
        break;
    }
  });
}

template <class T>
std::vector<T> scan_host(const Context& ctx, std::span<const T> in, const Operator& op,
                         int components, bool inclusive) {
  if (in.empty()) return {};
  const Buffer b = Buffer::from(ctx, in);
  Buffer out(ctx, element_type_of<T>(), in.size());
  scan(ctx, b, out, op, {components, {}, 0, ScanAlgorithm::Auto}, inclusive);
  return out.to_vector<T>();
}

}  // namespace

void inclusive_scan(const Context& ctx, const Buffer& in, Buffer& out, const Operator& op,
                    const ScanOptions& options) {
  scan(ctx, in, out, op, options, true);
}
void exclusive_scan(const Context& ctx, const Buffer& in, Buffer& out, const Operator& op,
                    const ScanOptions& options) {
  scan(ctx, in, out, op, options, false);
}

template <class T>
std::vector<T> inclusive_scan(const Context& ctx, std::span<const T> in, const Operator& op,
                              int components) {
  return scan_host(ctx, in, op, components, true);
}
template <class T>
std::vector<T> exclusive_scan(const Context& ctx, std::span<const T> in, const Operator& op,
                              int components) {
  return scan_host(ctx, in, op, components, false);
}

namespace {
// The subgroup scan (a bound for any order the driver's subgroup operations take: a term
// meets at most size - 1 others in one; combinations with an identity are exact). In a
// tile: 3 in its vec4, a row's exclusive scan, the chain of V rows, 2 more, the scan of
// the subgroups' totals (size - 1 and a chain of chunks), 2 more. A fallback aggregate: a
// lane's run of vec4s, the fold, a reduction. Across tiles a walk folds each passed tile
// once and each window adds one combination: at most 2 per tile.
int subgroup_scan_depth(const ScanPlan& p, std::size_t n) {
  const int sg = p.sg.size;
  const int local = p.sg_local;
  const int v = p.vec4s;
  const std::size_t tile = static_cast<std::size_t>(local) * 4 * static_cast<std::size_t>(v);
  const auto tiles = static_cast<int>(std::max<std::size_t>(1, (n + tile - 1) / tile));
  const int count = local / sg;
  const int in_tile = 3 + (sg - 1) + v + 2 + (sg - 1) + (count + sg - 1) / sg + 2;
  const int fallback = static_cast<int>(tile) / (4 * sg) + 2 + (sg - 1);
  return 2 * tiles + 2 * std::max(in_tile, fallback) + 2;
}
}  // namespace

int scan_error_depth(const Context& ctx, std::size_t n, int components, ScanAlgorithm algorithm) {
  primitives::check_components(components, "scan_error_depth");
  const ScanPlan p = plan_for(ctx, ElementType::Float32, components, Op::Sum, algorithm,
                              n * static_cast<std::size_t>(components));
  if (p.path == ScanPath::Subgroup) return subgroup_scan_depth(p, n);
  const primitives::ScanShape& s = p.shape;
  const std::size_t per_tile = static_cast<std::size_t>(s.local * s.scalars / components);
  const std::size_t tiles = std::max<std::size_t>(1, (n + per_tile - 1) / per_tile);
  // Within a tile: a run of scalars/components elements, the raking block scan (rake, then
  // local/rake totals, then one combination) and the two combinations with the prefixes.
  const int in_tile = s.scalars / components + s.rake + s.local / s.rake + 3;
  if (p.path == ScanPath::SinglePass) {
    // The tile prefix chains one tile total per preceding tile.
    return in_tile + static_cast<int>(tiles);
  }
  if (p.path == ScanPath::Serial) {
    // Serial: a run's total (chunk elements in a row), the small scan of the totals, then
    // the run again from its prefix.
    const std::size_t chunk = serial_chunk(n);
    const std::size_t runs = std::max<std::size_t>(1, (n + chunk - 1) / chunk);
    const int small =
        static_cast<int>((runs + s.local - 1) / s.local) + s.rake + s.local / s.rake + 1;
    return 2 * static_cast<int>(chunk) + small + 1;
  }
  // A tile total (a tile's reduction), then the one-group scan of the totals.
  const int small =
      static_cast<int>((tiles + s.local - 1) / s.local) + s.rake + s.local / s.rake + 1;
  return 2 * in_tile + small;
}

#define GPGPU_INSTANTIATE_SCAN(T)                                                                \
  template std::vector<T> inclusive_scan<T>(const Context&, std::span<const T>, const Operator&, \
                                            int);                                                \
  template std::vector<T> exclusive_scan<T>(const Context&, std::span<const T>, const Operator&, \
                                            int);
GPGPU_INSTANTIATE_SCAN(float)
GPGPU_INSTANTIATE_SCAN(std::int32_t)
GPGPU_INSTANTIATE_SCAN(std::uint32_t)
#undef GPGPU_INSTANTIATE_SCAN

}  // namespace gpgpu
