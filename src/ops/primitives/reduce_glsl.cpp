#include "reduce_glsl.hpp"

#include <fmt/format.h>

#include "glsl_ops.hpp"

namespace gpgpu::primitives {

std::string shared_tree(int local, const std::string& op, bool ordered) {
  if (ordered) {
    // Pairs (0,1), (2,3), ... then (0,2), (4,6), ...: every combination keeps operand order.
    return fmt::format(
        "  barrier();\n"
        "  for (uint s = 1u; s < {0}u; s <<= 1u) {{\n"
        "    if ((lid & (2u * s - 1u)) == 0u && lid + s < {0}u) partial[lid] = {1}(partial[lid], "
        "partial[lid + s]);\n"
        "    barrier();\n"
        "  }}\n",
        local, op);
  }
  // Halving: contiguous active invocations, no shared-memory bank conflicts.
  return fmt::format(
      "  barrier();\n"
      "  for (uint s = {0}u / 2u; s > 0u; s >>= 1u) {{\n"
      "    if (lid < s) partial[lid] = {1}(partial[lid], partial[lid + s]);\n"
      "    barrier();\n"
      "  }}\n",
      local, op);
}

namespace {

// Folds the vec4 lanes of `a` into one element of `components` (1, 2 or 4) and stores it.
std::string fold_and_store(int components) {
  switch (components) {
    case 1:
      return "    out_values[out_offset + g] = op1(op1(a.x, a.y), op1(a.z, a.w));\n";
    case 2:
      return "    opt_type r = opt(a.xy, a.zw);\n"
             "    out_values[out_offset + 2u * g] = r.x;\n"
             "    out_values[out_offset + 2u * g + 1u] = r.y;\n";
    default:
      return "    for (uint k = 0u; k < 4u; ++k) out_values[out_offset + 4u * g + k] = a[k];\n";
  }
}

// One trip of the body loop: `unroll` loads `local` apart, combined as a balanced tree, then
// into acc; the last group's partial trip falls back to checked loads.
std::string body_trip(int local, int unroll) {
  std::string loads, tree;
  for (int u = 0; u < unroll; ++u) {
    loads += fmt::format("      vec_type x{0} = in4[body_begin + i + {1}u];\n", u, u * local);
  }
  std::vector<std::string> level;
  for (int u = 0; u < unroll; ++u) level.push_back(fmt::format("x{}", u));
  while (level.size() > 1) {
    std::vector<std::string> next;
    for (std::size_t k = 0; k + 1 < level.size(); k += 2) {
      next.push_back(fmt::format("op4({}, {})", level[k], level[k + 1]));
    }
    if (level.size() % 2 == 1) next.push_back(level.back());
    level = next;
  }
  return fmt::format(
      "    uint i = begin + t * {0}u + lid;\n"
      "    if (i + {1}u < end) {{\n"
      "{2}"
      "      acc = op4(acc, {3});\n"
      "    }} else {{\n"
      "      for (uint u = 0u; u < {4}u; ++u) {{\n"
      "        uint j = i + u * {5}u;\n"
      "        if (j < end) acc = op4(acc, in4[body_begin + j]);\n"
      "      }}\n"
      "    }}\n",
      local * unroll, (unroll - 1) * local, loads, level[0], unroll, local);
}

}  // namespace

std::string reduce_vec4_source(ElementType type, int components, Op op, int local, int unroll) {
  const std::string s = scalar_type(type), v = vec4_type(type), t = element_type(type, components);
  std::string functions = op_functions(op, type, s, "op1") + op_functions(op, type, v, "op4");
  if (components == 2) functions += op_functions(op, type, t, "opt");
  return fmt::format(
      "layout(local_size_x = {0}) in;\n"
      "#define vec_type {1}\n"
      "#define opt_type {3}\n"
      "layout(std430, binding = 0) readonly buffer In4 {{ {1} in4[]; }};\n"
      "layout(std430, binding = 1) readonly buffer In1 {{ {2} in1[]; }};\n"
      "layout(std430, binding = 2) writeonly buffer Out {{ {2} out_values[]; }};\n"
      "uniform uint body_begin;\n"
      "uniform uint body_count;\n"
      "uniform uint chunk;\n"
      "uniform uint trips;\n"
      "uniform uvec4 edges;\n"
      "uniform uint out_offset;\n"
      "{4}"
      "shared {1} partial[{0}];\n"
      "void main() {{\n"
      "  uint lid = gl_LocalInvocationID.x;\n"
      "  uint g = gl_WorkGroupID.x;\n"
      "  uint begin = g * chunk;\n"
      "  uint end = min(begin + chunk, body_count);\n"
      "  {1} acc = op4_identity();\n"
      "  for (uint t = 0u; t < trips; ++t) {{\n"
      "{5}"
      "  }}\n"
      "  if (g == 0u && lid == 0u) {{\n"
      "    for (uint j = edges.x; j < edges.y; ++j) acc[j & 3u] = op1(acc[j & 3u], in1[j]);\n"
      "    for (uint j = edges.z; j < edges.w; ++j) acc[j & 3u] = op1(acc[j & 3u], in1[j]);\n"
      "  }}\n"
      "  partial[lid] = acc;\n"
      "{6}"
      "  if (lid == 0u) {{\n"
      "    {1} a = partial[0];\n"
      "{7}"
      "  }}\n"
      "}}\n",
      local, v, s, t, functions, body_trip(local, unroll), shared_tree(local, "op4", false),
      fold_and_store(components));
}

std::string reduce_ordered_source(ElementType type, int components, const Operator& op, int local) {
  const std::string s = scalar_type(type), t = element_type(type, components);
  std::string load = "in1[first_scalar + i]";
  std::string store = "out_values[out_offset + g] = r;";
  if (components > 1) {
    load = t + "(";
    store = "";
    for (int k = 0; k < components; ++k) {
      load += fmt::format("{}in1[first_scalar + i * {}u + {}u]", k ? ", " : "", components, k);
      store += fmt::format("out_values[out_offset + g * {0}u + {1}u] = r[{1}];", components, k);
    }
    load += ")";
  }
  return fmt::format(
      "layout(local_size_x = {0}) in;\n"
      "layout(std430, binding = 0) readonly buffer In1 {{ {1} in1[]; }};\n"
      "layout(std430, binding = 1) writeonly buffer Out {{ {1} out_values[]; }};\n"
      "uniform uint first_scalar;\n"
      "uniform uint count;\n"
      "uniform uint chunk;\n"
      "uniform uint per_thread;\n"
      "uniform uint out_offset;\n"
      "{3}"
      "{2} load(uint i) {{ return {4}; }}\n"
      "shared {2} partial[{0}];\n"
      "void main() {{\n"
      "  uint lid = gl_LocalInvocationID.x;\n"
      "  uint g = gl_WorkGroupID.x;\n"
      "  uint begin = g * chunk + lid * per_thread;\n"
      "  uint end = min(begin + per_thread, count);\n"
      "  {2} acc = opt_identity();\n"
      "  for (uint k = 0u; k < per_thread; ++k) {{\n"
      "    uint i = begin + k;\n"
      "    if (i < end) acc = opt(acc, load(i));\n"
      "  }}\n"
      "  partial[lid] = acc;\n"
      "{5}"
      "  if (lid == 0u) {{ {2} r = partial[0]; {6} }}\n"
      "}}\n",
      local, s, t, op_functions(op, type, t, "opt"), load, shared_tree(local, "opt", true), store);
}

}  // namespace gpgpu::primitives
