// The single-pass scan on subgroups: every invocation keeps its elements in registers, the
// block scan is subgroup scans (no shared-memory staging of the tile), and the look-back is
// done by a whole subgroup (look_back_glsl).
#include <fmt/format.h>

#include "glsl_ops.hpp"
#include "look_back_glsl.hpp"
#include "scan_glsl.hpp"
#include "subgroup_glsl.hpp"

namespace gpgpu::primitives {

namespace {

// Needs S, S4, L, V, the layer, op1/op4 (+ _identity), sgop_*, LOAD4/LOAD1. Subgroup s of the
// tile owns V rows of SG_SIZE vec4s (row r, lane l: vec4 slot (s * V + r) * SG_SIZE + l), so
// every load and store of a row is one contiguous run. A row is scanned within each vec4,
// then across lanes (sgop_exclusive), and rows are chained through the subgroup's running
// total; the subgroups' totals are scanned by the first subgroup, which also does the
// look-back.
const char* const scan_subgroup_glsl = R"(
#define TILE (L * V * 4)
layout(local_size_x = L) in;
layout(std430, binding = 2) writeonly buffer Out4 { S4 out4[]; };
layout(std430, binding = 3) writeonly buffer Out1 { S out1[]; };
layout(std430, binding = 4) coherent volatile buffer TileWords { uint tile_words[]; };
uniform uint in_first;
uniform uint out_first;
uniform uint total;       // scalars in the range
uniform uint tiles;
uniform bool vec4_io;     // in_first and out_first are multiples of 4
uniform bool inclusive;
uniform bool in_place;    // out is in: fence the published words before the output
uniform uint epoch;
uniform uint spin_limit;

// Scalars [e, e + 4) of the range; the identity past its end.
S4 load_vec(uint e) {
  if (vec4_io && e + 4u <= total) return LOAD4((in_first + e) >> 2u);
  S4 v = S4(op1_identity());
  for (uint c = 0u; c < 4u; ++c) {
    if (e + c < total) v[c] = LOAD1(in_first + e + c);
  }
  return v;
}
void store_vec(uint e, S4 v) {
  if (vec4_io && e + 4u <= total) {
    out4[(out_first + e) >> 2u] = v;
    return;
  }
  for (uint c = 0u; c < 4u; ++c) {
    if (e + c < total) out1[out_first + e + c] = v[c];
  }
}

#define LB_T S
#define LB_IDENT op1_identity()
S lb_op(S a, S b) { return op1(a, b); }
S lb_reduce(S x) { return sgop_reduce(x); }
S lb_fallback(uint tile) {
  S4 acc = S4(op1_identity());
  for (uint q = sg_lane(); q < uint(TILE / 4); q += SG_SIZE) {
    acc = op4(acc, load_vec(tile * uint(TILE) + 4u * q));
  }
  return sgop_reduce(op1(op1(acc.x, acc.y), op1(acc.z, acc.w)));
}
)";

const char* const scan_subgroup_main_glsl = R"(
shared uint tile_id;
shared S sg_totals[SG_COUNT];
shared S tile_prefix;

// The first subgroup: sg_totals becomes its exclusive scan; returns the tile's total.
S scan_subgroup_totals() {
  S run = op1_identity();
  for (uint b = 0u; b < uint(SG_COUNT); b += SG_SIZE) {
    uint k = b + sg_lane();
    S t = k < uint(SG_COUNT) ? sg_totals[k] : op1_identity();
    S ex = op1(run, sgop_exclusive(t));
    run = op1(run, sgop_reduce(t));
    if (k < uint(SG_COUNT)) sg_totals[k] = ex;
  }
  return run;
}

void main() {
  uint lid = gl_LocalInvocationID.x;
  // Groups of a 2-D grid past the last tile end before taking a tile number.
  if (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x >= tiles) return;
  if (lid == 0u) tile_id = atomicAdd(tile_words[0], 1u);
  barrier();
  uint tile = tile_id;
  uint ts = tile * uint(TILE);
  uint s = sg_index();
  uint lane = sg_lane();
  uint slot = s * uint(V) * SG_SIZE + lane;
  S4 x[V];
  S carry = op1_identity();
  for (uint r = 0u; r < uint(V); ++r) {
    S4 v = load_vec(ts + 4u * (slot + r * SG_SIZE));
    v.y = op1(v.x, v.y);
    v.z = op1(v.y, v.z);
    v.w = op1(v.z, v.w);
    S c = op1(carry, sgop_exclusive(v.w));
    x[r] = inclusive ? S4(op1(c, v.x), op1(c, v.y), op1(c, v.z), op1(c, v.w))
                     : S4(c, op1(c, v.x), op1(c, v.y), op1(c, v.z));
    carry = op1(carry, sgop_reduce(v.w));
  }
  if (lane == 0u) sg_totals[s] = carry;
  barrier();
  if (s == 0u) {
    S tile_total = scan_subgroup_totals();
    if (lane == 0u) lb_publish(tile, tile_total, tile == 0u ? FLAG_P : FLAG_A);
    S prefix = op1_identity();
    if (tile > 0u) {
      prefix = lb_exclusive_prefix(tile);
      if (lane == 0u) lb_publish(tile, op1(prefix, tile_total), FLAG_P);
    }
    if (lane == 0u) {
      // The decoupled fallback of a later tile takes this tile's input as intact while its
      // words read as not ready: in place, they must be seen before any of its output.
      if (in_place) memoryBarrierBuffer();
      tile_prefix = prefix;
    }
  }
  barrier();
  S pre = op1(tile_prefix, sg_totals[s]);
  for (uint r = 0u; r < uint(V); ++r) {
    store_vec(ts + 4u * (slot + r * SG_SIZE), op4(S4(pre), x[r]));
  }
  // Every tile has taken its number once the last one has: reset the counter for next time.
  if (tile == tiles - 1u && lid == 0u) atomicExchange(tile_words[0], 0u);
}
)";

}  // namespace

std::int64_t scan_subgroup_shared_bytes(int local, const Subgroups& sg) {
  // tile_id, sg_totals[SG_COUNT], tile_prefix.
  return 4 * (2 + std::int64_t{local} / sg.size) + subgroup_shared_bytes(sg, local);
}

std::string scan_subgroup_source(ElementType type, Op op, int local, int vec4s, const Subgroups& sg,
                                 Loads loads) {
  const std::string s = scalar_type(type), v = vec4_type(type);
  // The look-back's words carry a scalar's bit pattern.
  const bool f = type == ElementType::Float32;
  return fmt::format(
             "#define S {}\n#define S4 {}\n#define L {}\n#define V {}\n"
             "#define LB_BITS(x) {}\n#define LB_FROM_BITS(u) {}\n",
             s, v, local, vec4s, f ? "floatBitsToUint(x)" : "uint(x)",
             f ? "uintBitsToFloat(u)" : fmt::format("{}(u)", s)) +
         subgroup_glsl(sg, local) + op_functions(op, type, s, "op1") +
         op_functions(op, type, v, "op4") + subgroup_op_glsl(sg, type, op, "sgop") +
         input_glsl(type, loads, 0) + scan_subgroup_glsl + look_back_glsl + scan_subgroup_main_glsl;
}

}  // namespace gpgpu::primitives
