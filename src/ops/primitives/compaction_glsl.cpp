#include "compaction_glsl.hpp"

#include <fmt/format.h>

#include "glsl_ops.hpp"
#include "look_back_glsl.hpp"

namespace gpgpu::primitives {

namespace {

// Needs S, T, C, L, R, PARTITION, COUNT_ONLY, the layer, sgsum_*, LOAD1 and, after
// element(), keep(). Element k of the range is Buffer element first + k.
const char* const compaction_subgroup_glsl = R"(
#define TILE (L * R)
layout(local_size_x = L) in;
layout(std430, binding = 2) writeonly buffer Out { S out1[]; };
layout(std430, binding = 3) writeonly buffer Count { uint count_out[]; };
layout(std430, binding = 4) coherent volatile buffer TileWords { uint tile_words[]; };
layout(std430, binding = 5) coherent buffer KeptTotal { uint kept_total[]; };
uniform uint first;
uniform uint count;
uniform uint tiles;
uniform uint count_offset;
uniform uint epoch;
uniform uint spin_limit;

)";

const char* const compaction_subgroup_main_glsl = R"(
bool kept_at(uint k) { return k < count && keep(element(first + k), first + k); }

#define LB_T uint
#define LB_IDENT 0u
#define LB_BITS(x) (x)
#define LB_FROM_BITS(u) (u)
uint lb_op(uint a, uint b) { return a + b; }
uint lb_reduce(uint x) { return sgsum_reduce(x); }
uint lb_fallback(uint tile) {
  uint n = 0u;
  for (uint j = sg_lane(); j < uint(TILE); j += SG_SIZE) {
    if (kept_at(tile * uint(TILE) + j)) ++n;
  }
  return sgsum_reduce(n);
}
LOOK_BACK

shared uint tile_id;
shared uint kept_all;     // partition: the number selected in the whole range
shared uint sg_totals[SG_COUNT];
shared uint tile_prefix;
shared uint tile_total;

void main() {
  uint lid = gl_LocalInvocationID.x;
  if (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x >= tiles) return;
  if (lid == 0u) {
#if PARTITION && !COUNT_ONLY
    // Read before taking a tile number: the last tile resets it once every tile has one.
    kept_all = atomicOr(kept_total[0], 0u);
    memoryBarrierBuffer();
#endif
    tile_id = atomicAdd(tile_words[0], 1u);
  }
  barrier();
  uint tile = tile_id;
  uint s = sg_index();
  uint lane = sg_lane();
  uint k0 = tile * uint(TILE) + s * uint(R) * SG_SIZE + lane;
  T x[R];
  bool kept[R];
  uint before[R];
  uint carry = 0u;
  for (uint r = 0u; r < uint(R); ++r) {
    uint k = k0 + r * SG_SIZE;
    kept[r] = false;
    if (k < count) {
      x[r] = element(first + k);
      kept[r] = keep(x[r], first + k);
    }
    uvec4 b = sg_ballot(kept[r]);
    before[r] = carry + sg_ballot_below(b);
    carry += sg_ballot_count(b);
  }
#if COUNT_ONLY
  if (lane == 0u && carry != 0u) atomicAdd(kept_total[0], carry);
  barrier();
  if (tile == tiles - 1u && lid == 0u) atomicExchange(tile_words[0], 0u);
#else
  if (lane == 0u) sg_totals[s] = carry;
  barrier();
  if (s == 0u) {
    uint run = 0u;
    for (uint b = 0u; b < uint(SG_COUNT); b += SG_SIZE) {
      uint i = b + lane;
      uint t = i < uint(SG_COUNT) ? sg_totals[i] : 0u;
      uint ex = run + sgsum_exclusive(t);
      run += sgsum_reduce(t);
      if (i < uint(SG_COUNT)) sg_totals[i] = ex;
    }
    if (lane == 0u) lb_publish(tile, run, tile == 0u ? FLAG_P : FLAG_A);
    uint prefix = 0u;
    if (tile > 0u) {
      prefix = lb_exclusive_prefix(tile);
      if (lane == 0u) lb_publish(tile, prefix + run, FLAG_P);
    }
    if (lane == 0u) {
      tile_prefix = prefix;
      tile_total = run;
    }
  }
  barrier();
  uint base = tile_prefix + sg_totals[s];
  for (uint r = 0u; r < uint(R); ++r) {
    uint k = k0 + r * SG_SIZE;
    if (k >= count) continue;
    uint at = base + before[r];  // selected elements before element k
#if PARTITION
    if (!kept[r]) at = kept_all + k - at;
#else
    if (!kept[r]) continue;
#endif
#if C == 1
    out1[at] = x[r];
#else
    for (uint q = 0u; q < uint(C); ++q) out1[at * uint(C) + q] = x[r][q];
#endif
  }
  if (tile == tiles - 1u && lid == 0u) {
    count_out[count_offset] = tile_prefix + tile_total;
    atomicExchange(tile_words[0], 0u);
#if PARTITION
    atomicExchange(kept_total[0], 0u);
#endif
  }
#endif
}
)";

}  // namespace

std::string keep_function(CompactKind kind, const std::string& predicate, const std::string& t) {
  if (kind == CompactKind::Unique) {
    // The first of each run: element 0 of the range, or one that differs from its predecessor.
    return fmt::format(
        "bool keep({0} x, uint i) {{ return i == first || x != element(i - 1u); }}\n", t);
  }
  return fmt::format("bool keep({} x, uint i) {{ return bool({}); }}\n", t, predicate);
}

std::int64_t compaction_subgroup_shared_bytes(int local, const Subgroups& sg) {
  // tile_id, kept_all, sg_totals[SG_COUNT], tile_prefix, tile_total.
  return 4 * (4 + std::int64_t{local} / sg.size) + subgroup_shared_bytes(sg, local);
}

std::string compaction_subgroup_source(ElementType type, int components, CompactKind kind,
                                       const std::string& predicate, int local, int rows,
                                       const Subgroups& sg, Loads loads, bool count_only) {
  const std::string t = element_type(type, components);
  std::string main = compaction_subgroup_main_glsl;
  main.replace(main.find("LOOK_BACK"), 9, look_back_glsl);
  return fmt::format(
             "#define S {}\n#define T {}\n#define C {}\n#define L {}\n#define R {}\n"
             "#define PARTITION {}\n#define COUNT_ONLY {}\n",
             scalar_type(type), t, components, local, rows, kind == CompactKind::Partition ? 1 : 0,
             count_only ? 1 : 0) +
         subgroup_glsl(sg, local) + subgroup_op_glsl(sg, ElementType::Uint32, Op::Sum, "sgsum") +
         input_glsl(type, loads, 0) + compaction_subgroup_glsl + element_glsl +
         keep_function(kind, predicate, t) + main;
}

}  // namespace gpgpu::primitives
