// gpgpu::segmented_reduce: `lanes` invocations per segment (a power of two chosen from the
// average segment length), each reducing a contiguous part of its segment in order, then an
// order-keeping tree over the lanes in shared memory.
#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "device_fit.hpp"
#include "glsl_ops.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitive_checks.hpp"
#include "primitive_plans.hpp"
#include "primitive_registry.hpp"
#include "primitive_tuning.hpp"

namespace gpgpu {

namespace {

// Needs S, T, C, L, LOAD1, opt(). Loops are nested so that none runs past 65535 trips.
const char* const segmented_glsl = R"(
layout(local_size_x = L) in;
layout(std430, binding = 2) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 3) writeonly buffer Out { S out1[]; };
uniform uint segments;
uniform uint count;   // elements of the input
uniform uint lanes;   // invocations per segment, a power of two <= L
shared T partial[L];


void main() {
  uint lid = gl_LocalInvocationID.x;
  uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  uint s = group * (uint(L) / lanes) + lid / lanes;
  uint j = lid % lanes;
  T acc = opt_identity();
  if (s < segments) {
    uint start = min(offsets[s], count);
    uint end = max(min(offsets[s + 1u], count), start);
    uint per = (end - start + lanes - 1u) / lanes;
    uint b = start + j * per;
    uint e = min(b + per, end);
    for (uint outer = 0u; outer < 65535u && b < e; ++outer) {
      uint stop = min(e, b + 65535u);
      for (; b < stop; ++b) acc = opt(acc, element(b));
    }
  }
  partial[lid] = acc;
  barrier();
  for (uint st = 1u; st < lanes; st <<= 1u) {
    if ((j & (2u * st - 1u)) == 0u && j + st < lanes) partial[lid] = opt(partial[lid], partial[lid + st]);
    barrier();
  }
  if (j == 0u && s < segments) {
    T r = partial[lid];
#if C == 1
    out1[s] = r;
#else
    for (uint q = 0u; q < uint(C); ++q) out1[s * uint(C) + q] = r[q];
#endif
  }
}
)";

// Several dispatches over the parts of every segment (part p of each, in order), each
// result combined after the previous part's: a CPU device whose work groups are too small
// for its longest segment would otherwise loop past its cap in one invocation.
std::string parts_glsl() {
  std::string s = segmented_glsl;
  primitives::patch(s, "layout(std430, binding = 3) writeonly buffer Out { S out1[]; };\n",
                    "layout(std430, binding = 3) buffer Out { S out1[]; };\n"
                    "uniform uint part;    // this dispatch's part of every segment\n"
                    "uniform uint parts;\n"
                    "T stored(uint s) {\n"
                    "#if C == 1\n"
                    "  return out1[s];\n"
                    "#else\n"
                    "  T v;\n"
                    "  for (uint q = 0u; q < uint(C); ++q) v[q] = out1[s * uint(C) + q];\n"
                    "  return v;\n"
                    "#endif\n"
                    "}\n");
  primitives::patch(s, "    uint end = max(min(offsets[s + 1u], count), start);\n",
                    "    uint end = max(min(offsets[s + 1u], count), start);\n"
                    "    uint piece = (end - start + parts - 1u) / parts;\n"
                    "    start = min(start + part * piece, end);\n"
                    "    end = min(start + piece, end);\n");
  primitives::patch(s, "    T r = partial[lid];\n",
                    "    T r = partial[lid];\n"
                    "    if (part > 0u) r = opt(stored(s), r);\n");
  return s;
}

// The work group, the lanes per segment and the parts for segments of `average` and at most
// `longest` elements: about one lane per 8 elements on average, a power of two up to the
// group. llvmpipe ends an invocation's loops after 65535 trips in all: its longest segment
// gets enough lanes that none walks more than 16384 elements, up to the work group, and
// where that is too small, parts of at most 32768 elements per lane.
struct SegmentedShape {
  int local = 256;
  std::size_t lanes = 1, parts = 1;
};

SegmentedShape segmented_shape(const DeviceInfo& info, std::size_t average, std::size_t longest) {
  const primitives::DeviceFit fit = primitives::device_fit(info);
  SegmentedShape s;
  s.lanes = std::bit_ceil(std::max<std::size_t>(1, average / 8));
  s.local = primitives::fit_local(256, fit);
  if (info.is_software) {
    s.lanes = std::max(s.lanes, std::bit_ceil((longest + 16383) / 16384));
    s.local =
        primitives::fit_local(static_cast<int>(std::clamp<std::size_t>(s.lanes, 64, 1024)), fit);
  }
  s.lanes = std::min(s.lanes, static_cast<std::size_t>(s.local));
  if (info.is_software) {
    const std::size_t per_part = s.lanes * 32768;
    s.parts = std::max<std::size_t>(1, (longest + per_part - 1) / per_part);
  }
  return s;
}

// `texels`: the input Buffer's elements where known (primitives::reduce_tuning).
primitives::KernelSpec segmented_kernel(const PrimitiveTuning& t, const DeviceInfo& info,
                                        ElementType element, int components, const Operator& op,
                                        const SegmentedShape& shape, std::size_t texels = 0) {
  const primitives::Loads loads =
      t.texel_loads == 1 && primitives::texel_loads_possible(primitives::device_fit(info), texels)
          ? primitives::Loads::Texels
          : primitives::Loads::Storage;
  const bool parts = shape.parts > 1;
  const int local = shape.local;
  return {fmt::format("segmented {} {} {} {} {}{}", to_string(element), components,
                      primitives::op_key(op), local, primitives::to_string(loads),
                      parts ? " parts" : ""),
          [=] {
            const std::string type = primitives::element_type(element, components);
            return fmt::format("#define S {}\n#define T {}\n#define C {}\n#define L {}\n",
                               primitives::scalar_type(element), type, components, local) +
                   primitives::input_glsl(element, loads, 0) +
                   primitives::op_functions(op, element, type, "opt") + primitives::element_glsl +
                   (parts ? parts_glsl() : std::string(segmented_glsl));
          }};
}

}  // namespace

void segmented_reduce(const Context& ctx, const Buffer& in, const Buffer& offsets, Buffer& out,
                      const Operator& op, int components) {
  const char* fn = "segmented_reduce";
  primitives::check_buffer(ctx, in, fn, "in");
  primitives::check_buffer(ctx, offsets, fn, "offsets");
  primitives::check_buffer(ctx, out, fn, "out");
  primitives::check_components(components, fn);
  primitives::check_type(offsets, ElementType::Uint32, fn, "offsets");
  primitives::check_type(out, in.element_type(), fn, "out");
  const auto r = primitives::resolve_range(in, {}, components, fn, "in");
  if (offsets.size() < 2) {
    throw SizeMismatchError(
        fmt::format("gpgpu::segmented_reduce: 'offsets' holds {} value(s); segments need at least "
                    "2 (start and end)",
                    offsets.size()));
  }
  const std::size_t segments = offsets.size() - 1;
  const auto c = static_cast<std::size_t>(components);
  primitives::check_room(out, 0, segments * c, fn, "out");
  primitives::check_index_range(r.count, fn, "in");

  const std::size_t average = r.elements / segments;
  std::size_t longest = 0;
  if (ctx.info().is_software) {
    // The longest segment sizes the lanes on CPU devices (their loop cap). The offsets are
    // read back for that (on a CPU device the "device" memory is host memory; this waits
    // for the GPU).
    const auto o = offsets.to_vector<std::uint32_t>();
    for (std::size_t s = 0; s < segments; ++s) {
      const std::size_t start = std::min<std::size_t>(o[s], r.elements);
      const std::size_t end = std::max(std::min<std::size_t>(o[s + 1], r.elements), start);
      longest = std::max(longest, end - start);
    }
  }
  const SegmentedShape shape = segmented_shape(ctx.info(), average, longest);
  const std::size_t per_group = static_cast<std::size_t>(shape.local) / shape.lanes;
  auto& reg = primitives::registry(ctx);
  ComputeKernel& k =
      reg.kernel(ctx, segmented_kernel(primitives::effective_tuning(ctx), ctx.info(),
                                       in.element_type(), components, op, shape, in.size()));
  Args args = primitives::input_args(in);
  args.insert(args.end(), {{"offsets", offsets},
                           {"out1", out},
                           {"segments", static_cast<std::uint32_t>(segments)},
                           {"count", static_cast<std::uint32_t>(r.elements)},
                           {"lanes", static_cast<std::uint32_t>(shape.lanes)},
                           {"parts", static_cast<std::uint32_t>(shape.parts)}});
  const Size3 grid = primitives::grid_for(ctx, (segments + per_group - 1) / per_group);
  for (std::size_t part = 0; part < shape.parts; ++part) {
    Args with_part = args;
    with_part.emplace_back("part", static_cast<std::uint32_t>(part));
    reg.run(k, with_part, grid);
  }
}

template <class T>
std::vector<T> segmented_reduce(const Context& ctx, std::span<const T> in,
                                std::span<const std::uint32_t> offsets, const Operator& op,
                                int components) {
  if (offsets.size() < 2) return {};
  const Buffer b = in.empty()
                       ? Buffer(ctx, element_type_of<T>(), static_cast<std::size_t>(components))
                       : Buffer::from(ctx, in);
  std::vector<std::uint32_t> clamped(offsets.begin(), offsets.end());
  if (in.empty())
    std::fill(clamped.begin(), clamped.end(), 0u);  // the placeholder holds no elements
  const Buffer o = Buffer::from(ctx, std::span<const std::uint32_t>(clamped));
  Buffer out(ctx, element_type_of<T>(),
             (offsets.size() - 1) * static_cast<std::size_t>(components));
  segmented_reduce(ctx, b, o, out, op, components);
  return out.to_vector<T>();
}

namespace primitives {
std::vector<KernelSpec> segmented_kernels(const DeviceInfo& info, const PrimitiveTuning& t,
                                          ElementType type, int components, const Operator& op,
                                          std::size_t longest) {
  return {segmented_kernel(t, info, type, components, op, segmented_shape(info, longest, longest))};
}
}  // namespace primitives

#define GPGPU_INSTANTIATE_SEGMENTED(T)         \
  template std::vector<T> segmented_reduce<T>( \
      const Context&, std::span<const T>, std::span<const std::uint32_t>, const Operator&, int);
GPGPU_INSTANTIATE_SEGMENTED(float)
GPGPU_INSTANTIATE_SEGMENTED(std::int32_t)
GPGPU_INSTANTIATE_SEGMENTED(std::uint32_t)
#undef GPGPU_INSTANTIATE_SEGMENTED

}  // namespace gpgpu
