// gpgpu::copy_if / partition / unique: flags (predicate per element), an exclusive scan of
// the flags (exclusive_scan) into positions, then a scatter that evaluates the predicate
// again and writes each element at its position (partition: the others after the count).
#include <fmt/format.h>

#include "compaction_glsl.hpp"
#include "device_fit.hpp"
#include "glsl_ops.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitive_checks.hpp"
#include "primitive_plans.hpp"
#include "primitive_registry.hpp"
#include "primitive_tuning.hpp"
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

// With 4 storage blocks (OpenGL ES 3.1's minimum) the blocks take bindings from 0 (the
// input, if a block, read as scalars at 0).
std::string compaction_body(bool narrow) {
  std::string body = compaction_glsl;
  if (narrow) {
    primitives::patch(body, "binding = 2) buffer Positions", "binding = 1) buffer Positions");
    primitives::patch(body, "binding = 3) writeonly buffer Out",
                      "binding = 2) writeonly buffer Out");
    primitives::patch(body, "binding = 4) writeonly buffer Count",
                      "binding = 3) writeonly buffer Count");
  }
  return body;
}

std::string source(ElementType type, int components, Kind kind, const std::string& predicate,
                   int mode, primitives::Loads loads, bool narrow) {
  const std::string t = primitives::element_type(type, components);
  std::string body = compaction_body(narrow);
  // keep() needs element(): insert its definition after element's.
  const std::string marker = "void main() {";
  body.replace(body.find("ELEMENT"), 7, primitives::element_glsl);
  body.insert(body.find(marker), primitives::keep_function(kind, predicate, t));
  const primitives::Loads input =
      narrow && loads == primitives::Loads::Storage ? primitives::Loads::Scalars : loads;
  return fmt::format(
             "#define S {}\n#define T {}\n#define C {}\n#define MODE {}\n#define PARTITION {}\n",
             primitives::scalar_type(type), t, components, mode, kind == Kind::Partition ? 1 : 0) +
         primitives::input_glsl(type, input, 0) + body;
}

const char* name_of(Kind k) {
  return k == Kind::CopyIf ? "copy_if" : k == Kind::Partition ? "partition" : "unique";
}

// The kernels a compaction runs: on subgroups, one pass (`scatter`; partition counts first
// with `count`), where they fit; else `flags`, a scan of them, and `scatter`.
struct CompactionPlan {
  bool subgroups = false;
  primitives::Subgroups sg;
  int local = 0, rows = 0;  // subgroups: the work group and rows per subgroup
  primitives::KernelSpec flags, scatter, count;
  std::vector<primitives::KernelSpec> kernels() const {
    std::vector<primitives::KernelSpec> all;
    for (const auto* k : {&flags, &count, &scatter}) {
      if (!k->key.empty()) all.push_back(*k);
    }
    return all;
  }
};

// The subgroup kernels' blocks: the input's (in1 only, unless texels), out, count, tile
// words, and partition's kept_total, at bindings up to 5.
bool subgroup_compaction_fits(const primitives::DeviceFit& fit, const CompactionPlan& p, Kind kind,
                              primitives::Loads loads) {
  const bool partition = kind == Kind::Partition;
  const int blocks = (partition ? 5 : 4) - (loads == primitives::Loads::Texels ? 1 : 0);
  return primitives::fits_storage(fit, blocks, partition ? 6 : 5) && p.local <= fit.invocations &&
         primitives::compaction_subgroup_shared_bytes(p.local, p.sg) <= fit.shared_bytes;
}

// `texels`: the input Buffer's elements where known (primitives::reduce_tuning).
CompactionPlan plan_compaction(const DeviceInfo& info, const PrimitiveTuning& t, ElementType type,
                               int components, Kind kind, const std::string& predicate,
                               std::size_t texels = 0) {
  const primitives::DeviceFit fit = primitives::device_fit(info);
  const primitives::Loads loads =
      t.texel_loads == 1 && primitives::texel_loads_possible(fit, texels)
          ? primitives::Loads::Texels
          : primitives::Loads::Storage;
  CompactionPlan p;
  p.sg = primitives::subgroups_for(info, t.subgroups);
  const std::string name = fmt::format("{} {} {} {}", name_of(kind), to_string(type), components,
                                       primitives::to_string(loads));
  if (p.sg.on) {
    p.local = primitives::subgroup_local(t.scan_local, p.sg);
    p.rows = info.is_software ? 4 : 8;
    if (subgroup_compaction_fits(fit, p, kind, loads)) {
      p.subgroups = true;
      const auto kernel = [&, sg = p.sg, local = p.local, rows = p.rows](bool count_only) {
        return primitives::KernelSpec{
            fmt::format("compact_sg {} {} {}x{} sg{}{} {}", name, count_only, local, rows, sg.size,
                        sg.native ? "" : "e", predicate),
            [=] {
              return primitives::compaction_subgroup_source(type, components, kind, predicate,
                                                            local, rows, sg, loads, count_only);
            }};
      };
      p.scatter = kernel(false);
      if (kind == Kind::Partition) p.count = kernel(true);
      return p;
    }
  }
  // The scatter's input (in1 only: in4 is declared but unused, unless texels), positions,
  // out and count at bindings up to 4.
  const bool narrow = !primitives::fits_storage(fit, loads == primitives::Loads::Texels ? 3 : 4, 5);
  const auto kernel = [&](int mode) {
    return primitives::KernelSpec{
        fmt::format("compact {} {}{} {}", name, mode, narrow ? " narrow" : "", predicate),
        [=] { return source(type, components, kind, predicate, mode, loads, narrow); }};
  };
  p.flags = kernel(0);
  p.scatter = kernel(1);
  return p;
}

// One pass (two for partition: the count first) on the subgroup kernels
// (compaction_subgroup_source).
void compact_subgroups(const Context& ctx, const CompactionPlan& p, const Buffer& in, Buffer& out,
                       Buffer& count_out, std::size_t count_offset, const CompactOptions& o,
                       const primitives::ScalarRange& r) {
  auto& reg = primitives::registry(ctx);
  // Compile before anything runs, so a bad predicate changes nothing.
  ComputeKernel& scatter = reg.kernel(ctx, p.scatter);
  ComputeKernel* counter = p.count.key.empty() ? nullptr : &reg.kernel(ctx, p.count);
  if (r.elements == 0) {
    count_out.upload(std::vector<std::uint32_t>{0}, count_offset);
    return;
  }
  const std::size_t tile = static_cast<std::size_t>(p.local) * static_cast<std::size_t>(p.rows);
  const std::size_t tiles = (r.elements + tile - 1) / tile;
  bool fresh = false;
  Buffer& kept_total = reg.zeroed_scratch(ctx, "compact.kept_total", ElementType::Uint32, 1, fresh);
  const primitives::TileFlags f =
      primitives::tile_flags(ctx, tiles, primitives::TileWordKind::Packed);
  Args args = primitives::input_args(in);
  args.insert(
      args.end(),
      {{"out1", out},
       {"count_out", count_out},
       {"tile_words", *f.flags},
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
  const CompactionPlan p =
      plan_compaction(ctx.info(), primitives::effective_tuning(ctx), in.element_type(),
                      o.components, kind, predicate, in.size());
  if (p.subgroups) {
    compact_subgroups(ctx, p, in, out, count_out, count_offset, o, r);
    return;
  }
  // Compile both kernels before anything runs, so a bad predicate changes nothing.
  ComputeKernel& flags = reg.kernel(ctx, p.flags);
  ComputeKernel& scatter = reg.kernel(ctx, p.scatter);
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

namespace primitives {
std::vector<KernelSpec> compaction_kernels(const DeviceInfo& info, const PrimitiveTuning& t,
                                           ElementType type, int components, CompactKind kind,
                                           const std::string& predicate) {
  return plan_compaction(info, t, type, components, kind, predicate).kernels();
}
}  // namespace primitives

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
