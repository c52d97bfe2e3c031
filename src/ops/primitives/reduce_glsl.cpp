#include "reduce_glsl.hpp"

#include <fmt/format.h>

#include "glsl_ops.hpp"
#include "last_group_glsl.hpp"
#include "subgroup_glsl.hpp"

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
      return "    out_values[out_offset] = op1(op1(a.x, a.y), op1(a.z, a.w));\n";
    case 2:
      return "    opt_type r = opt(a.xy, a.zw);\n"
             "    out_values[out_offset] = r.x;\n"
             "    out_values[out_offset + 1u] = r.y;\n";
    default:
      return "    for (uint k = 0u; k < 4u; ++k) out_values[out_offset + k] = a[k];\n";
  }
}

// One trip of the body loop: `unroll` loads `local` apart, combined as a balanced tree, then
// into acc; a trip past the end falls back to checked loads. Trip t starts at
// begin + t * stride.
std::string body_trip(int local, int unroll) {
  std::string loads;
  for (int u = 0; u < unroll; ++u) {
    loads += fmt::format("      vec_type x{0} = LOAD4(body_begin + i + {1}u);\n", u, u * local);
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
      "    uint i = begin + t * stride + lid;\n"
      "    if (i + {0}u < end) {{\n"
      "{1}"
      "      acc = op4(acc, {2});\n"
      "    }} else {{\n"
      "      for (uint u = 0u; u < {3}u; ++u) {{\n"
      "        uint j = i + u * {4}u;\n"
      "        if (j < end) acc = op4(acc, LOAD4(body_begin + j));\n"
      "      }}\n"
      "    }}\n",
      (unroll - 1) * local, loads, level[0], unroll, local);
}

// group_combine(v): the work group's vec4 values combined with op4, valid in invocation 0.
// Shared memory: a halving tree. Subgroups: each subgroup reduces its lanes, the first
// subgroup the subgroups' results.
std::string group_combine(ElementType type, Op op, int local, const Subgroups& sg) {
  if (!sg.on) {
    return fmt::format(
        "shared vec_type partial[{0}];\n"
        "vec_type group_combine(vec_type v, uint lid) {{\n"
        "  partial[lid] = v;\n"
        "{1}"
        "  return partial[0];\n"
        "}}\n",
        local, shared_tree(local, "op4", false));
  }
  return subgroup_glsl(sg, local) + subgroup_op_glsl(sg, type, op, "sgop") +
         R"(vec_type sg_combine(vec_type v) {
  return vec_type(sgop_reduce(v.x), sgop_reduce(v.y), sgop_reduce(v.z), sgop_reduce(v.w));
}
shared vec_type sg_partial[SG_COUNT];
vec_type group_combine(vec_type v, uint lid) {
  vec_type r = sg_combine(v);
  if (sg_lane() == 0u) sg_partial[sg_index()] = r;
  barrier();
  vec_type total = op4_identity();
  if (sg_index() == 0u) {
    for (uint base = 0u; base < uint(SG_COUNT); base += SG_SIZE) {
      uint k = base + sg_lane();
      total = op4(total, sg_combine(k < uint(SG_COUNT) ? sg_partial[k] : op4_identity()));
    }
  }
  return total;
}
)";
}

// The partial results and the last-group counter: two blocks, or one with the counter first.
std::string scratch_blocks(const std::string& v, bool merged) {
  if (merged) {
    return fmt::format(
        "layout(std430, binding = 3) coherent buffer Partials {{ uint done_count[4]; {} "
        "partials[]; }};\n",
        v);
  }
  return fmt::format(
      "layout(std430, binding = 3) coherent buffer Partials {{ {} partials[]; }};\n"
      "layout(std430, binding = 4) coherent buffer Done {{ uint done_count[]; }};\n",
      v);
}

}  // namespace

std::int64_t reduce_shared_need(int local) {
  // partial[local] of vec4 values and the last-group flag (the subgroup form needs less).
  return 16 * std::int64_t{local} + 4;
}

std::string reduce_vec4_source(ElementType type, int components, Op op, const ReduceTuning& t,
                               const Subgroups& sg, bool strided) {
  const std::string s = scalar_type(type), v = vec4_type(type), e = element_type(type, components);
  std::string functions = op_functions(op, type, s, "op1") + op_functions(op, type, v, "op4");
  if (components == 2) functions += op_functions(op, type, e, "opt");
  // Contiguous: group g reads [g * chunk, (g + 1) * chunk) in trips of local * unroll.
  // Strided: trip t of group g starts at (t * groups + g) * local * unroll (chunk = stride),
  // so that all groups sweep the Buffer together.
  const std::string range =
      strided ? fmt::format(
                    "  uint begin = g * {0}u;\n  uint stride = chunk;\n  uint end = body_count;\n",
                    t.local * t.unroll)
              : fmt::format(
                    "  uint begin = g * chunk;\n  uint stride = {0}u;\n"
                    "  uint end = min(begin + chunk, body_count);\n",
                    t.local * t.unroll);
  // One dispatch: every group stores its vec4 in partials; the last group to finish
  // (done_count) combines them in order (runs per invocation, then group_combine), stores
  // the result and resets the counter.
  return fmt::format(
      "layout(local_size_x = {0}) in;\n"
      "#define vec_type {1}\n"
      "#define opt_type {3}\n"
      "{8}"
      "layout(std430, binding = 2) writeonly buffer Out {{ {2} out_values[]; }};\n"
      "{11}"
      "uniform uint body_begin;\n"
      "uniform uint body_count;\n"
      "uniform uint chunk;\n"
      "uniform uint trips;\n"
      "uniform uint groups;\n"
      "uniform uvec4 edges;\n"
      "uniform uint out_offset;\n"
      "{4}"
      "{9}"
      "{10}"
      "void store(vec_type a) {{\n"
      "{7}"
      "}}\n"
      "void main() {{\n"
      "  uint lid = gl_LocalInvocationID.x;\n"
      "  uint g = gl_WorkGroupID.x;\n"
      "{6}"
      "  {1} acc = op4_identity();\n"
      "  for (uint t = 0u; t < trips; ++t) {{\n"
      "{5}"
      "  }}\n"
      "  if (g == 0u && lid == 0u) {{\n"
      "    for (uint j = edges.x; j < edges.y; ++j) acc[j & 3u] = op1(acc[j & 3u], LOAD1(j));\n"
      "    for (uint j = edges.z; j < edges.w; ++j) acc[j & 3u] = op1(acc[j & 3u], LOAD1(j));\n"
      "  }}\n"
      "  vec_type r = group_combine(acc, lid);\n"
      "  if (groups == 1u) {{\n"
      "    if (lid == 0u) store(r);\n"
      "    return;\n"
      "  }}\n"
      "  if (lid == 0u) partials[g] = r;\n"
      "  if (!last_group()) return;\n"
      "  uint per = (groups + {0}u - 1u) / {0}u;\n"
      "  vec_type run = op4_identity();\n"
      "  for (uint k = 0u; k < per; ++k) {{\n"
      "    uint i = lid * per + k;\n"
      "    if (i < groups) run = op4(run, partials[i]);\n"
      "  }}\n"
      "  barrier();\n"
      "  vec_type total = group_combine(run, lid);\n"
      "  if (lid == 0u) {{\n"
      "    store(total);\n"
      "    done_count[0] = 0u;\n"
      "  }}\n"
      "}}\n",
      t.local, v, s, e, functions, body_trip(t.local, t.unroll), range, fold_and_store(components),
      input_glsl(type, t.loads, 0), group_combine(type, op, t.local, sg), last_group_glsl,
      scratch_blocks(v, t.merged_counter));
}

std::string reduce_ordered_source(ElementType type, int components, const Operator& op, int local,
                                  Loads loads) {
  const std::string s = scalar_type(type), t = element_type(type, components);
  std::string load = "LOAD1(first_scalar + i)";
  std::string store = "out_values[out_offset + g] = r;";
  if (components > 1) {
    load = t + "(";
    store = "";
    for (int k = 0; k < components; ++k) {
      load += fmt::format("{}LOAD1(first_scalar + i * {}u + {}u)", k ? ", " : "", components, k);
      store += fmt::format("out_values[out_offset + g * {0}u + {1}u] = r[{1}];", components, k);
    }
    load += ")";
  }
  return fmt::format(
      "layout(local_size_x = {0}) in;\n"
      "{7}"
      "layout(std430, binding = 2) writeonly buffer Out {{ {1} out_values[]; }};\n"
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
      local, s, t, op_functions(op, type, t, "opt"), load, shared_tree(local, "opt", true), store,
      input_glsl(type, loads, 0));
}

}  // namespace gpgpu::primitives
