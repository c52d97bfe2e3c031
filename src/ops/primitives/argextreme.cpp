// gpgpu::argmin / argmax: the index of the first extreme element. Pass 1: each invocation
// tracks the best (value, index) of each vec4 lane over its loads, work groups combine in
// shared memory; pass 2: one work group combines the groups' results. Combining prefers the
// more extreme value, then the smaller index, so the order of combination does not matter.
#include <fmt/format.h>

#include "glsl_ops.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitive_checks.hpp"
#include "primitive_plans.hpp"
#include "primitive_registry.hpp"
#include "reduce_glsl.hpp"
#include "reduce_plan.hpp"

namespace gpgpu {

namespace {

using primitives::ReduceTuning;
using primitives::Vec4Plan;

enum class Extremum { Min, Max };

// GLSL shared by both passes: the `better` test and the pair combination. A NaN value is
// never better (comparisons with NaN are false), and its index is never taken.
std::string pair_functions(ElementType type, Extremum which) {
  const std::string s = primitives::scalar_type(type), v = primitives::vec4_type(type);
  const char* cmp = which == Extremum::Max ? ">" : "<";
  const char* vcmp = which == Extremum::Max ? "greaterThan" : "lessThan";
  const std::uint32_t bits =
      primitives::builtin_identity_bits(which == Extremum::Max ? Op::Max : Op::Min, type);
  const std::string identity = type == ElementType::Float32
                                   ? fmt::format("uintBitsToFloat({}u)", bits)
                               : type == ElementType::Int32 ? fmt::format("int({}u)", bits)
                                                            : fmt::format("{}u", bits);
  const std::string is_number =
      type == ElementType::Float32
          ? "bvec4 is_number(vec4 x) { return lessThanEqual(floatBitsToUint(x) & "
            "0x7FFFFFFFu, uvec4(0x7F800000u)); }\n"
            "bool is_number(float x) { return (floatBitsToUint(x) & "
            "0x7FFFFFFFu) <= 0x7F800000u; }\n"
          : fmt::format(
                "bvec4 is_number({} x) {{ return bvec4(true); }}\n"
                "bool is_number({} x) {{ return true; }}\n",
                v, s);
  return fmt::format(
      "const uint none = 0xFFFFFFFFu;\n"
      "{0} identity() {{ return {2}; }}\n"
      "{5}"
      // Lane-wise update with loads at increasing indices: strictly better, or the first number.
      "void take({1} x, uvec4 i, inout {1} best, inout uvec4 at) {{\n"
      "  bvec4 first = bvec4(uvec4(equal(at, uvec4(none))) & uvec4(is_number(x)));\n"
      "  bvec4 t = bvec4(uvec4({4}(x, best)) | uvec4(first));\n"
      "  best = mix(best, x, t);\n"
      "  at = mix(at, i, t);\n"
      "}}\n"
      // Order-free combination of two (value, index) pairs.
      "void combine(inout {0} best, inout uint at, {0} x, uint i) {{\n"
      "  if (i == none) return;\n"
      "  if (at == none || x {3} best || (x == best && i < at)) {{ best = x; at = i; }}\n"
      "}}\n",
      s, v, identity, cmp, vcmp, is_number);
}

std::string tree(int local) {
  return fmt::format(
      "  barrier();\n"
      "  for (uint s = {0}u / 2u; s > 0u; s >>= 1u) {{\n"
      "    if (lid < s) {{\n"
      "      {{\n"
      "        value_type b = best_values[lid]; uint a = best_at[lid];\n"
      "        combine(b, a, best_values[lid + s], best_at[lid + s]);\n"
      "        best_values[lid] = b; best_at[lid] = a;\n"
      "      }}\n"
      "    }}\n"
      "    barrier();\n"
      "  }}\n",
      local);
}

std::string pass1_source(ElementType type, Extremum which, int local, primitives::Loads loads) {
  const std::string s = primitives::scalar_type(type), v = primitives::vec4_type(type);
  return fmt::format(
      "layout(local_size_x = {0}) in;\n"
      "#define value_type {1}\n"
      "{6}"
      "layout(std430, binding = 2) writeonly buffer Values {{ {1} group_values[]; }};\n"
      "layout(std430, binding = 3) writeonly buffer Indices {{ uint group_at[]; }};\n"
      "uniform uint body_begin;\n"
      "uniform uint body_count;\n"
      "uniform uint chunk;\n"
      "uniform uint trips;\n"
      "uniform uvec4 edges;\n"
      "{3}"
      "shared {1} best_values[{0}];\n"
      "shared uint best_at[{0}];\n"
      "void main() {{\n"
      "  uint lid = gl_LocalInvocationID.x;\n"
      "  uint g = gl_WorkGroupID.x;\n"
      "  uint begin = g * chunk;\n"
      "  uint end = min(begin + chunk, body_count);\n"
      "  {2} best = {2}(identity());\n"
      "  uvec4 at = uvec4(none);\n"
      "  for (uint t = 0u; t < trips; ++t) {{\n"
      "    for (uint u = 0u; u < 4u; ++u) {{\n"
      "      uint j = begin + t * {4}u + u * {0}u + lid;\n"
      "      if (j < end) {{\n"
      "        uint q = 4u * (body_begin + j);\n"
      "        take(LOAD4(body_begin + j), uvec4(q, q + 1u, q + 2u, q + 3u), best, at);\n"
      "      }}\n"
      "    }}\n"
      "  }}\n"
      "  {1} b = identity(); uint a = none;\n"
      "  for (uint k = 0u; k < 4u; ++k) combine(b, a, best[k], at[k]);\n"
      "  if (g == 0u && lid == 0u) {{\n"
      "    for (uint j = edges.x; j < edges.y; ++j) if (is_number(LOAD1(j))) combine(b, a, "
      "LOAD1(j), "
      "j);\n"
      "    for (uint j = edges.z; j < edges.w; ++j) if (is_number(LOAD1(j))) combine(b, a, "
      "LOAD1(j), "
      "j);\n"
      "  }}\n"
      "  best_values[lid] = b; best_at[lid] = a;\n"
      "{5}"
      "  if (lid == 0u) {{ group_values[g] = best_values[0]; group_at[g] = best_at[0]; }}\n"
      "}}\n",
      local, s, v, pair_functions(type, which), 4 * local, tree(local),
      primitives::input_glsl(type, loads, 0));
}

std::string pass2_source(ElementType type, Extremum which, int local) {
  const std::string s = primitives::scalar_type(type);
  return fmt::format(
      "layout(local_size_x = {0}) in;\n"
      "#define value_type {1}\n"
      "layout(std430, binding = 0) readonly buffer Values {{ {1} group_values[]; }};\n"
      "layout(std430, binding = 1) readonly buffer Indices {{ uint group_at[]; }};\n"
      "layout(std430, binding = 2) writeonly buffer Out {{ uint index_out[]; }};\n"
      "layout(std430, binding = 3) writeonly buffer OutValue {{ {1} value_out[]; }};\n"
      "uniform uint groups;\n"
      "uniform uint per_thread;\n"
      "uniform uint out_offset;\n"
      "{2}"
      "shared {1} best_values[{0}];\n"
      "shared uint best_at[{0}];\n"
      "void main() {{\n"
      "  uint lid = gl_LocalInvocationID.x;\n"
      "  {1} b = identity(); uint a = none;\n"
      "  for (uint k = 0u; k < per_thread; ++k) {{\n"
      "    uint j = lid * per_thread + k;\n"
      "    if (j < groups) combine(b, a, group_values[j], group_at[j]);\n"
      "  }}\n"
      "  best_values[lid] = b; best_at[lid] = a;\n"
      "{3}"
      "  if (lid == 0u) {{ index_out[out_offset] = best_at[0]; value_out[0] = best_values[0]; }}\n"
      "}}\n",
      local, s, pair_functions(type, which), tree(local));
}

const char* name_of(Extremum which) {
  return which == Extremum::Max ? "argmax" : "argmin";
}

// Pass 1 (4 storage blocks: the input's two and the groups' values and indices) and pass 2.
std::array<primitives::KernelSpec, 2> kernels(const ReduceTuning& t, ElementType type,
                                              Extremum which) {
  const std::string key = fmt::format("{} {} {} {}", name_of(which), to_string(type), t.local,
                                      primitives::to_string(t.loads));
  return {
      primitives::KernelSpec{key + " pass1",
                             [=] { return pass1_source(type, which, t.local, t.loads); }},
      primitives::KernelSpec{key + " pass2", [=] { return pass2_source(type, which, t.local); }}};
}

// Validates, then launches both passes; the index goes to index_out[out_offset], the value
// to the returned scratch Buffer's element 0.
Buffer& launch(const Context& ctx, const Buffer& in, Buffer& index_out, std::size_t out_offset,
               Range range, Extremum which) {
  const char* fn = name_of(which);
  primitives::check_buffer(ctx, in, fn, "in");
  primitives::check_buffer(ctx, index_out, fn, "index_out");
  primitives::check_type(index_out, ElementType::Uint32, fn, "index_out");
  primitives::check_room(index_out, out_offset, 1, fn, "index_out");
  const auto r = primitives::resolve_range(in, range, 1, fn, "in");
  primitives::check_index_range(r.first + r.count, fn, "in");

  const ReduceTuning t = primitives::reduce_tuning(ctx, in.size());
  const auto max_groups = static_cast<std::size_t>(ctx.info().max_compute_work_group_count[0]);
  ReduceTuning t4 = t;
  t4.unroll = 4;  // the pass-1 loop loads 4 vec4 per trip
  const Vec4Plan p = primitives::plan_vec4(r.first, r.count, t4, max_groups);
  const ElementType type = in.element_type();
  auto& reg = primitives::registry(ctx);
  Buffer& values = reg.scratch(ctx, "argext.values", type, p.groups);
  Buffer& at = reg.scratch(ctx, "argext.indices", ElementType::Uint32, p.groups);
  Buffer& value_out = reg.scratch(ctx, "argext.value", type, 1);
  const auto [pass1, pass2] = kernels(t, type, which);
  const std::array<std::uint32_t, 4> edges = {p.head_begin, p.head_end, p.tail_begin, p.tail_end};
  Args args = primitives::input_args(in);
  args.insert(args.end(), {{"group_values", values},
                           {"group_at", at},
                           {"body_begin", p.body_begin},
                           {"body_count", p.body_count},
                           {"chunk", p.chunk},
                           {"trips", p.trips},
                           {"edges", edges}});
  reg.run(reg.kernel(ctx, pass1), args, {p.groups, 1, 1});
  reg.kernel(ctx, pass2)
      .run_groups({{"group_values", values},
                   {"group_at", at},
                   {"index_out", index_out},
                   {"value_out", value_out},
                   {"groups", p.groups},
                   {"per_thread", primitives::second_pass_run(p.groups, t)},
                   {"out_offset", static_cast<std::uint32_t>(out_offset)}},
                  {1, 1, 1});
  return value_out;
}

template <class T>
Extreme<T> host_result(const Context& ctx, const Buffer& in, Range range, Extremum which) {
  primitives::check_buffer(ctx, in, name_of(which), "in");
  primitives::check_type(in, element_type_of<T>(), name_of(which), "in");
  Buffer& index = primitives::registry(ctx).scratch(ctx, "argext.index", ElementType::Uint32, 1);
  const Buffer& value = launch(ctx, in, index, 0, range, which);
  Extreme<T> e;
  index.download(std::span<std::uint32_t>(&e.index, 1));
  if (e.index != no_index) value.download(std::span<T>(&e.value, 1));
  return e;
}

template <class T>
Extreme<T> host_span(const Context& ctx, std::span<const T> in, Extremum which) {
  if (in.empty()) return {};
  const Buffer b = Buffer::from(ctx, in);
  return host_result<T>(ctx, b, {}, which);
}

}  // namespace

void argmin(const Context& ctx, const Buffer& in, Buffer& index_out, std::size_t out_offset,
            Range range) {
  launch(ctx, in, index_out, out_offset, range, Extremum::Min);
}
void argmax(const Context& ctx, const Buffer& in, Buffer& index_out, std::size_t out_offset,
            Range range) {
  launch(ctx, in, index_out, out_offset, range, Extremum::Max);
}

template <class T>
Extreme<T> argmin(const Context& ctx, const Buffer& in, Range range) {
  return host_result<T>(ctx, in, range, Extremum::Min);
}
template <class T>
Extreme<T> argmax(const Context& ctx, const Buffer& in, Range range) {
  return host_result<T>(ctx, in, range, Extremum::Max);
}
template <class T>
Extreme<T> argmin(const Context& ctx, std::span<const T> in) {
  return host_span(ctx, in, Extremum::Min);
}
template <class T>
Extreme<T> argmax(const Context& ctx, std::span<const T> in) {
  return host_span(ctx, in, Extremum::Max);
}

namespace primitives {
std::vector<KernelSpec> argextreme_kernels(const DeviceInfo& info, const PrimitiveTuning& t,
                                           ElementType type, bool max) {
  const auto both = kernels(reduce_tuning(info, t), type, max ? Extremum::Max : Extremum::Min);
  return {both.begin(), both.end()};
}
}  // namespace primitives

#define GPGPU_INSTANTIATE_ARGEXTREME(T)                                \
  template Extreme<T> argmin<T>(const Context&, const Buffer&, Range); \
  template Extreme<T> argmax<T>(const Context&, const Buffer&, Range); \
  template Extreme<T> argmin<T>(const Context&, std::span<const T>);   \
  template Extreme<T> argmax<T>(const Context&, std::span<const T>);
GPGPU_INSTANTIATE_ARGEXTREME(float)
GPGPU_INSTANTIATE_ARGEXTREME(std::int32_t)
GPGPU_INSTANTIATE_ARGEXTREME(std::uint32_t)
#undef GPGPU_INSTANTIATE_ARGEXTREME

}  // namespace gpgpu
