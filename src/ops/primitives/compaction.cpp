// gpgpu::copy_if / partition / unique: flags (predicate per element), an exclusive scan of
// the flags (exclusive_scan) into positions, then a scatter that evaluates the predicate
// again and writes each element at its position (partition: the others after the count).
#include <fmt/format.h>

#include "compaction_glsl.hpp"
#include "glsl_ops.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitive_checks.hpp"
#include "primitive_registry.hpp"
#include "subgroup_glsl.hpp"
#include "tile_flags.hpp"

namespace gpgpu {

namespace {

using Kind = primitives::CompactKind;

// Needs S, T, C, MODE (0 flags, 1 scatter), PARTITION, LOAD1 and keep(x, i).
const char* const compaction_glsl = R"(
layout(local_size_x = gpgpu_group_size) in;
layout(std430, binding = 2) buffer Positions { uint positions[]; };
#if MODE == 1
layout(std430, binding = 3) writeonly buffer Out { S out1[]; };
layout(std430, binding = 4) writeonly buffer Count { uint count_out[]; };
uniform uint count_offset;
#endif
uniform uint first;   // element index of the range's start
uniform uint count;   // elements

ELEMENT

void main() {
  uint k = gpgpu_index();
  if (k >= count) return;
  uint e = first + k;
  bool kept = keep(element(e), e);
#if MODE == 0
  positions[k] = kept ? 1u : 0u;
#else
  uint last = first + count - 1u;
  uint total = positions[count - 1u] + (keep(element(last), last) ? 1u : 0u);
  if (k == 0u) count_out[count_offset] = total;
  uint at = kept ? positions[k] : total + k - positions[k];
#if !PARTITION
  if (!kept) return;
#endif
#if C == 1
  out1[at] = element(e);
#else
  T v = element(e);
  for (uint q = 0u; q < uint(C); ++q) out1[at * uint(C) + q] = v[q];
#endif
#endif
}
)";

std::string source(ElementType type, int components, Kind kind, const std::string& predicate,
                   int mode, bool texels) {
  const std::string t = primitives::element_type(type, components);
  std::string body = compaction_glsl;
  // keep() needs element(): insert its definition after element's.
  const std::string marker = "void main() {";
  body.replace(body.find("ELEMENT"), 7, primitives::element_glsl);
  body.insert(body.find(marker), primitives::keep_function(kind, predicate, t));
  return fmt::format(
             "#define S {}\n#define T {}\n#define C {}\n#define MODE {}\n#define PARTITION {}\n",
             primitives::scalar_type(type), t, components, mode, kind == Kind::Partition ? 1 : 0) +
         primitives::input_glsl(type, texels, 0) + body;
}

const char* name_of(Kind k) {
  return k == Kind::CopyIf ? "copy_if" : k == Kind::Partition ? "partition" : "unique";
}

// One pass (two for partition: the count first) on the subgroup kernels
// (compaction_subgroup_source).
void compact_subgroups(const Context& ctx, const Buffer& in, Buffer& out, Kind kind,
                       const std::string& predicate, Buffer& count_out, std::size_t count_offset,
                       const CompactOptions& o, const primitives::ScalarRange& r) {
  auto& reg = primitives::registry(ctx);
  const primitives::Subgroups sg = primitives::subgroups(ctx);
  const PrimitiveTuning t = primitive_tuning(ctx);
  const bool texels = t.texel_loads == 1;
  const int local = primitives::subgroup_local(t.scan_local, sg);
  const int rows = ctx.info().is_software ? 4 : 8;
  const auto kernel = [&](bool count_only) -> ComputeKernel& {
    const std::string key = fmt::format(
        "compact_sg {} {} {} {} {} {}x{} sg{}{} {}", name_of(kind), to_string(in.element_type()),
        o.components, count_only, texels, local, rows, sg.size, sg.native ? "" : "e", predicate);
    return reg.kernel(ctx, key, [&] {
      return primitives::compaction_subgroup_source(in.element_type(), o.components, kind,
                                                    predicate, local, rows, sg, texels, count_only);
    });
  };
  // Compile before anything runs, so a bad predicate changes nothing.
  ComputeKernel& scatter = kernel(false);
  ComputeKernel* counter = kind == Kind::Partition ? &kernel(true) : nullptr;
  if (r.elements == 0) {
    count_out.upload(std::vector<std::uint32_t>{0}, count_offset);
    return;
  }
  const std::size_t tile = static_cast<std::size_t>(local) * static_cast<std::size_t>(rows);
  const std::size_t tiles = (r.elements + tile - 1) / tile;
  Buffer& values = reg.scratch(ctx, "compact.tile_values", ElementType::Uint32, 2 * tiles);
  bool fresh = false;
  Buffer& kept_total = reg.zeroed_scratch(ctx, "compact.kept_total", ElementType::Uint32, 1, fresh);
  const primitives::TileFlags f = primitives::tile_flags(ctx, tiles);
  Args args = primitives::input_args(in);
  args.insert(
      args.end(),
      {{"out1", out},
       {"count_out", count_out},
       {"tile_values", values},
       {"tile_flags", *f.flags},
       {"kept_total", kept_total},
       {"first", static_cast<std::uint32_t>(r.first / static_cast<std::size_t>(o.components))},
       {"count", static_cast<std::uint32_t>(r.elements)},
       {"tiles", static_cast<std::uint32_t>(tiles)},
       {"count_offset", static_cast<std::uint32_t>(count_offset)},
       {"epoch", f.epoch},
       // Software devices never wait for another tile (llvmpipe's loop budget).
       {"spin_limit", ctx.info().is_software ? 1u : 4096u}});
  const Size3 grid = primitives::grid_for(ctx, tiles);
  if (counter != nullptr) reg.run(*counter, args, grid);
  reg.run(scatter, args, grid);
}

void compact(const Context& ctx, const Buffer& in, Buffer& out, Kind kind,
             const std::string& predicate, Buffer& count_out, std::size_t count_offset,
             const CompactOptions& o) {
  const char* fn = name_of(kind);
  primitives::check_buffer(ctx, in, fn, "in");
  primitives::check_buffer(ctx, out, fn, "out");
  primitives::check_buffer(ctx, count_out, fn, "count_out");
  primitives::check_components(o.components, fn);
  primitives::check_type(out, in.element_type(), fn, "out");
  primitives::check_type(count_out, ElementType::Uint32, fn, "count_out");
  primitives::check_room(count_out, count_offset, 1, fn, "count_out");
  const auto r = primitives::resolve_range(in, o.range, o.components, fn, "in");
  primitives::check_index_range(r.first + r.count, fn, "in");
  // Room for every element: how many are selected is known only on the device.
  primitives::check_room(out, 0, r.count, fn, "out");
  if (kind != Kind::Unique && predicate.find_first_not_of(" \t\n") == std::string::npos) {
    throw ArgumentError(fmt::format("gpgpu::{}: the predicate is empty", fn));
  }
  auto& reg = primitives::registry(ctx);
  const bool texels = primitive_tuning(ctx).texel_loads == 1;
  const auto kernel = [&](int mode) -> ComputeKernel& {
    const std::string key =
        fmt::format("compact {} {} {} {} {} {}", fn, to_string(in.element_type()), o.components,
                    mode, texels, predicate);
    return reg.kernel(ctx, key, [&] {
      return source(in.element_type(), o.components, kind, predicate, mode, texels);
    });
  };
  if (primitives::subgroups(ctx).on) {
    compact_subgroups(ctx, in, out, kind, predicate, count_out, count_offset, o, r);
    return;
  }
  // Compile both kernels before anything runs, so a bad predicate changes nothing.
  ComputeKernel& flags = kernel(0);
  ComputeKernel& scatter = kernel(1);
  if (r.elements == 0) {
    count_out.upload(std::vector<std::uint32_t>{0}, count_offset);
    return;
  }
  Buffer& positions = reg.scratch(ctx, "compact.positions", ElementType::Uint32, r.elements);
  Args args = primitives::input_args(in);
  args.insert(
      args.end(),
      {{"positions", positions},
       {"out1", out},
       {"count_out", count_out},
       {"count_offset", static_cast<std::uint32_t>(count_offset)},
       {"first", static_cast<std::uint32_t>(r.first / static_cast<std::size_t>(o.components))},
       {"count", static_cast<std::uint32_t>(r.elements)}});
  reg.run_items(flags, args, r.elements);
  exclusive_scan(ctx, positions, positions, Op::Sum, {1, {0, r.elements}, 0});
  reg.run_items(scatter, args, r.elements);
}

std::size_t read_count(const Context& ctx, const Buffer& count) {
  (void)ctx;
  std::uint32_t n = 0;
  count.download(std::span<std::uint32_t>(&n, 1));
  return n;
}

}  // namespace

void copy_if(const Context& ctx, const Buffer& in, Buffer& out, const std::string& predicate,
             Buffer& count_out, std::size_t count_offset, const CompactOptions& options) {
  compact(ctx, in, out, Kind::CopyIf, predicate, count_out, count_offset, options);
}
void partition(const Context& ctx, const Buffer& in, Buffer& out, const std::string& predicate,
               Buffer& count_out, std::size_t count_offset, const CompactOptions& options) {
  compact(ctx, in, out, Kind::Partition, predicate, count_out, count_offset, options);
}
void unique(const Context& ctx, const Buffer& in, Buffer& out, Buffer& count_out,
            std::size_t count_offset, const CompactOptions& options) {
  compact(ctx, in, out, Kind::Unique, "", count_out, count_offset, options);
}

std::size_t copy_if(const Context& ctx, const Buffer& in, Buffer& out, const std::string& predicate,
                    const CompactOptions& options) {
  Buffer& count = primitives::registry(ctx).scratch(ctx, "compact.count", ElementType::Uint32, 1);
  copy_if(ctx, in, out, predicate, count, 0, options);
  return read_count(ctx, count);
}
std::size_t partition(const Context& ctx, const Buffer& in, Buffer& out,
                      const std::string& predicate, const CompactOptions& options) {
  Buffer& count = primitives::registry(ctx).scratch(ctx, "compact.count", ElementType::Uint32, 1);
  partition(ctx, in, out, predicate, count, 0, options);
  return read_count(ctx, count);
}
std::size_t unique(const Context& ctx, const Buffer& in, Buffer& out,
                   const CompactOptions& options) {
  Buffer& count = primitives::registry(ctx).scratch(ctx, "compact.count", ElementType::Uint32, 1);
  unique(ctx, in, out, count, 0, options);
  return read_count(ctx, count);
}

template <class T>
std::vector<T> copy_if(const Context& ctx, std::span<const T> in, const std::string& predicate,
                       int components) {
  if (in.empty()) return {};
  const Buffer b = Buffer::from(ctx, in);
  Buffer out(ctx, element_type_of<T>(), in.size());
  const std::size_t n = copy_if(ctx, b, out, predicate, {components, {}});
  std::vector<T> result(n * static_cast<std::size_t>(components));
  out.download(std::span<T>(result));
  return result;
}

template <class T>
std::vector<T> unique(const Context& ctx, std::span<const T> in, int components) {
  if (in.empty()) return {};
  const Buffer b = Buffer::from(ctx, in);
  Buffer out(ctx, element_type_of<T>(), in.size());
  const std::size_t n = unique(ctx, b, out, {components, {}});
  std::vector<T> result(n * static_cast<std::size_t>(components));
  out.download(std::span<T>(result));
  return result;
}

#define GPGPU_INSTANTIATE_COMPACT(T)                                                               \
  template std::vector<T> copy_if<T>(const Context&, std::span<const T>, const std::string&, int); \
  template std::vector<T> unique<T>(const Context&, std::span<const T>, int);
GPGPU_INSTANTIATE_COMPACT(float)
GPGPU_INSTANTIATE_COMPACT(std::int32_t)
GPGPU_INSTANTIATE_COMPACT(std::uint32_t)
#undef GPGPU_INSTANTIATE_COMPACT

}  // namespace gpgpu
