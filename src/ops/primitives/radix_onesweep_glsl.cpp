// The Onesweep radix sort's kernels (Adinets & Merrill 2022): one histogram pass for all four
// digits, then one pass per digit that ranks a tile with subgroup ballots, finds each digit's
// place by a chained scan with decoupled look-back over the tiles, and scatters.
#include <fmt/format.h>

#include <algorithm>

#include "glsl_ops.hpp"
#include "last_group_glsl.hpp"
#include "radix_sort_glsl.hpp"

namespace gpgpu::primitives {

namespace {

// The status word of (pass, slot, digit): (value << 3) | code. Slot 0 holds the digit's
// global start (inclusive, written by the histogram pass), slot t + 1 tile t's count
// (aggregate) or its inclusive prefix. A call's codes are 1 + 2q (aggregate) and 2 + 2q
// (prefix) for its parity q, so words of the previous call (and zeros) read as not ready;
// the host clears the slots beyond those the previous call wrote. Values stay below 2^29:
// a storage block holds fewer keys than that.
const char* const status_glsl = R"(
layout(std430, binding = 2) coherent volatile buffer Status { uint status[]; };
uniform uint slots;    // slots per pass region
uniform uint code_a;   // this call's aggregate code
uniform uint code_p;   // this call's prefix code
uint status_at(uint pass, uint slot, uint digit) { return (pass * slots + slot) * 256u + digit; }
)";

// Global histogram of all four digits. Group g counts keys [g * chunk, (g + 1) * chunk) into
// shared counters, adds them to `totals` (zero between calls); the last group to finish
// turns them into each digit's exclusive start, publishes those in slot 0 of the four pass
// regions, and leaves totals zeroed and its counter reset.
const char* const onesweep_histogram_glsl = R"(
layout(local_size_x = L) in;
layout(std430, binding = 0) readonly buffer KeysIn { KT keys_in[]; };
layout(std430, binding = 1) coherent buffer Totals { uint totals[]; };
layout(std430, binding = 3) coherent buffer Done { uint done_count[]; };
uniform uint in_first;
uniform uint count;
uniform uint chunk;
shared uint hist[1024];
LAST_GROUP
void main() {
  uint lid = gl_LocalInvocationID.x;
  uint g = gl_WorkGroupID.x;
  for (uint i = lid; i < 1024u; i += uint(L)) hist[i] = 0u;
  barrier();
  uint end = min(g * chunk + chunk, count);
  for (uint i = g * chunk + lid; i < end; i += uint(L)) {
    uint k = radix_key(key_bits(keys_in[in_first + i]));
    atomicAdd(hist[k & 255u], 1u);
    atomicAdd(hist[256u + ((k >> 8u) & 255u)], 1u);
    atomicAdd(hist[512u + ((k >> 16u) & 255u)], 1u);
    atomicAdd(hist[768u + (k >> 24u)], 1u);
  }
  barrier();
  for (uint i = lid; i < 1024u; i += uint(L)) {
    if (hist[i] != 0u) atomicAdd(totals[i], hist[i]);
  }
  if (!last_group()) return;
  for (uint i = lid; i < 1024u; i += uint(L)) hist[i] = atomicExchange(totals[i], 0u);
  barrier();
  if (lid < 4u) {
    uint run = 0u;
    for (uint d = 0u; d < 256u; ++d) {
      uint c = hist[lid * 256u + d];
      hist[lid * 256u + d] = run;
      run += c;
    }
  }
  barrier();
  for (uint i = lid; i < 1024u; i += uint(L)) {
    atomicExchange(status[status_at(i >> 8u, 0u, i & 255u)], (hist[i] << 3u) | code_p);
  }
  if (lid == 0u) done_count[0] = 0u;
}
)";

// One digit pass over tiles of L * K keys, tiles taken in order from tile_counter[0].
// Subgroup s ranks keys [s * K * SG_SIZE, (s + 1) * K * SG_SIZE) of the tile in K rounds of
// SG_SIZE consecutive keys: lanes with the same digit find each other with 8 ballots (and
// one for validity), the lowest of them adds their number to the subgroup's counter of that
// digit with a shared atomic and hands the count before to the others by a shuffle, and each
// key's rank is that count plus its same-digit lanes below. That order is the keys' input
// order, so the sort is stable; no subgroup barrier is needed between rounds.
//
// Shared memory is what limits how many tiles an SM holds at once (NVIDIA's GL driver gives
// compute work 48 to 64 KiB per SM: docs/primitives-internals.md), so the tile's tables share
// one array: the subgroups' digit counters (two 16-bit counts per word: a tile holds at most
// 512 x 32 = 2^14 keys, so every count and running sum fits) and the digit totals and starts
// live where the sorted keys go later; each key's final rank is taken from them before the
// keys are written there.
const char* const onesweep_pass_glsl = R"(
#pragma optionNV(unroll all)
#define TILE (L * K)
#define COUNTERS 0u                              // SG_COUNT * 128 words of packed counts
#define TOTALS (uint(SG_COUNT) * 128u)           // the tile's count of each digit
#define STARTS (TOTALS + 256u)                   // where the digit's run starts in the tile
#define SG_SUMS (STARTS + 256u)                  // SG_COUNT sums of a slice of the totals
layout(local_size_x = L) in;
layout(std430, binding = 3) coherent buffer TileCounter { uint tile_counter[]; };
#define VALUES_IN_BINDING 4
#define VALUES_OUT_BINDING 5
SORT_IO
uniform uint pass;
uniform uint spin_limit;

shared uint tile_mem[TILE_MEM];   // the tables above, then the tile's keys (values) sorted
shared uint digit_offset[256];    // output position of tile_mem[j] is digit_offset + j
// The tile number is handed out in digit_offset[0], which is not written before the look-back:
// one word less keeps a 256 x 15 tile at 16 KiB, three groups per SM on NVIDIA.
#define tile_id digit_offset[0]

uint count_of(uint s, uint d) { return (tile_mem[COUNTERS + s * 128u + (d >> 1u)] >> ((d & 1u) * 16u)) & 0xffffu; }

// The tile's count of `digit`, from its keys (the look-back's fallback).
uint count_digit(uint tile, uint digit) {
  uint n = 0u;
  uint end = min(tile * uint(TILE) + uint(TILE), count);
  for (uint i = tile * uint(TILE); i < end; ++i) {
    if (digit_of(key_bits(keys_in[in_first + i])) == digit) ++n;
  }
  return n;
}

// Where this tile's run of `digit` starts in the output: the digit's global start (slot 0)
// plus its count in every earlier tile, walking back until an inclusive prefix. The walk
// reads LB_WINDOW slots at once (independent loads: a walk of w slots costs about w /
// LB_WINDOW memory latencies, not w) and folds them from the nearest up to the first that
// is not ready; when the nearest stays not ready for spin_limit polls, its tile's count is
// taken from its keys instead. Slot 0 is always an inclusive prefix, so every walk ends.
#define LB_WINDOW 8u
uint look_back(uint tile, uint digit) {
  uint prefix = 0u;
  uint slot = tile;  // the nearest slot not folded yet (that of tile slot - 1)
  uint spins = 0u;
  for (;;) {
    uint w[LB_WINDOW];
    for (uint k = 0u; k < LB_WINDOW; ++k) w[k] = k <= slot ? status[status_at(pass, slot - k, digit)] : 0u;
    uint k = 0u;
    for (; k < LB_WINDOW && k <= slot; ++k) {
      uint code = w[k] & 7u;
      if (code == code_p) return prefix + (w[k] >> 3u);
      if (code != code_a) break;
      prefix += w[k] >> 3u;
    }
    if (k > 0u) {
      slot -= k;
      spins = 0u;
    } else if (++spins >= spin_limit) {
      prefix += count_digit(slot - 1u, digit);
      slot -= 1u;
      spins = 0u;
    }
  }
  return prefix;
}

void main() {
  uint lid = gl_LocalInvocationID.x;
  // Groups of a 2-D grid past the last tile end before taking a tile number.
  if (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x >= tiles) return;
  if (lid == 0u) tile_id = atomicAdd(tile_counter[0], 1u);
  for (uint i = lid; i < uint(SG_COUNT) * 128u; i += uint(L)) tile_mem[COUNTERS + i] = 0u;
  barrier();
  uint tile = tile_id;
  uint base = tile * uint(TILE);
  uint tile_count = min(uint(TILE), count - base);
  uint s = sg_index();
  uint lane = sg_lane();
  uint first = s * uint(K) * SG_SIZE + lane;  // this lane's key in round 0

  uint bits[K];
  uint rank[K];
  for (uint r = 0u; r < uint(K); ++r) {
    uint j = first + r * SG_SIZE;
    bool valid = j < tile_count;
    bits[r] = valid ? key_bits(keys_in[in_first + base + j]) : 0u;
  }
#if WITH_VALUES
  // Loaded with the keys, so that their latency hides behind the ranking.
  uint vals[K];
  for (uint r = 0u; r < uint(K); ++r) {
    uint j = first + r * SG_SIZE;
    vals[r] = j >= tile_count ? 0u : iota_values ? iota_base + base + j : values_in[vin_first + base + j];
  }
#endif
  for (uint r = 0u; r < uint(K); ++r) {
    bool valid = first + r * SG_SIZE < tile_count;
    uint d = digit_of(bits[r]);
    uvec4 v = sg_ballot(valid);
    uvec4 same = valid ? v : ~v;
    for (uint b = 0u; b < 8u; ++b) {
      bool set = ((d >> b) & 1u) != 0u;
      uvec4 m = sg_ballot(set);
      same &= set ? m : ~m;
    }
    uint below = sg_ballot_below(same);
    uint before = 0u;
    if (valid && below == 0u) {
      uint shift = (d & 1u) * 16u;
      before = atomicAdd(tile_mem[COUNTERS + s * 128u + (d >> 1u)], sg_ballot_count(same) << shift) >> shift;
    }
    rank[r] = (sg_shuffle(before, sg_ballot_first(same)) & 0xffffu) + below;
  }
  barrier();

  // Per pair of digits: the subgroups' counts become exclusive; the tile's count is published.
  for (uint w = lid; w < 128u; w += uint(L)) {
    uint run0 = 0u;
    uint run1 = 0u;
    for (uint k = 0u; k < uint(SG_COUNT); ++k) {
      uint c = tile_mem[COUNTERS + k * 128u + w];
      tile_mem[COUNTERS + k * 128u + w] = run0 | (run1 << 16u);
      run0 += c & 0xffffu;
      run1 += c >> 16u;
    }
    tile_mem[TOTALS + 2u * w] = run0;
    tile_mem[TOTALS + 2u * w + 1u] = run1;
    for (uint h = 0u; h < 2u; ++h) {
      uint d = 2u * w + h;
      uint run = h == 0u ? run0 : run1;
      uint code = tile == 0u ? code_p : code_a;
      uint value = tile == 0u ? run + (status[status_at(pass, 0u, d)] >> 3u) : run;
      atomicExchange(status[status_at(pass, tile + 1u, d)], (value << 3u) | code);
    }
  }
  barrier();
  // The digits' starts, an exclusive scan of the totals by every subgroup at once (L digits
  // per slice): each subgroup scans its digits, then adds the sums of the subgroups before.
  uint carry = 0u;
  for (uint b = 0u; b < 256u; b += uint(L)) {
    uint d = b + lid;
    uint c = d < 256u ? tile_mem[TOTALS + d] : 0u;
    uint x = sgsum_exclusive(c);
    if (lane == SG_SIZE - 1u) tile_mem[SG_SUMS + s] = x + c;
    barrier();
    uint before = carry;
    for (uint k = 0u; k < uint(SG_COUNT); ++k) {
      uint t = tile_mem[SG_SUMS + k];
      if (k < s) before += t;
      carry += t;
    }
    if (d < 256u) tile_mem[STARTS + d] = before + x;
    barrier();
  }

  // Each key's place in the sorted tile; each digit's place in the output.
  for (uint r = 0u; r < uint(K); ++r) {
    uint d = digit_of(bits[r]);
    rank[r] += tile_mem[STARTS + d] + count_of(s, d);
  }
  for (uint d = lid; d < 256u; d += uint(L)) {
    uint start = tile == 0u ? status[status_at(pass, 0u, d)] >> 3u
                            : look_back(tile, d);
    if (tile != 0u) {
      atomicExchange(status[status_at(pass, tile + 1u, d)],
                     ((start + tile_mem[TOTALS + d]) << 3u) | code_p);
    }
    digit_offset[d] = start - tile_mem[STARTS + d];
  }
  barrier();  // the tables are read: the sorted keys take their place
  for (uint r = 0u; r < uint(K); ++r) {
    if (first + r * SG_SIZE < tile_count) tile_mem[rank[r]] = bits[r];
  }
  barrier();

  uint dest[K];
  for (uint r = 0u; r < uint(K); ++r) {
    uint j = lid + r * uint(L);
    if (j < tile_count) {
      uint b = tile_mem[j];
      dest[r] = digit_offset[digit_of(b)] + j;
      keys_out[out_first + dest[r]] = key_from_bits(b);
    }
  }
#if WITH_VALUES
  barrier();
  for (uint r = 0u; r < uint(K); ++r) {
    uint j = first + r * SG_SIZE;
    if (j < tile_count) tile_mem[rank[r]] = vals[r];
  }
  barrier();
  for (uint r = 0u; r < uint(K); ++r) {
    uint j = lid + r * uint(L);
    if (j < tile_count) values_out[vout_first + dest[r]] = tile_mem[j];
  }
#endif
  // Every tile has taken its number once the last one has: reset the counter.
  if (tile == tiles - 1u && lid == 0u) atomicExchange(tile_counter[0], 0u);
}
)";

}  // namespace

// The sorted tile, or the packed counters, the digit totals and starts and the subgroups' sums
// where they need more.
std::int64_t onesweep_tile_words(const SortShape& shape, const Subgroups& sg) {
  const std::int64_t subgroups = shape.local / std::max(1, sg.size);
  return std::max<std::int64_t>(std::int64_t{shape.local} * shape.keys, subgroups * 129 + 512);
}

std::int64_t onesweep_histogram_shared_bytes() {
  return 4 * (1024 + 1);  // hist, and the last-group flag
}

std::string onesweep_histogram_source(ElementType key_type, int local) {
  SortShape shape;
  shape.local = local;
  return sort_header(key_type, shape, false) + sort_key_glsl + status_glsl +
         with_last_group(onesweep_histogram_glsl);
}

std::string onesweep_pass_source(ElementType key_type, bool with_values, const SortShape& shape,
                                 const Subgroups& sg) {
  return sort_header(key_type, shape, with_values) +
         fmt::format("#define TILE_MEM {}\n", onesweep_tile_words(shape, sg)) +
         subgroup_glsl(sg, shape.local) +
         subgroup_op_glsl(sg, ElementType::Uint32, Op::Sum, "sgsum") + sort_key_glsl + status_glsl +
         with_sort_io(onesweep_pass_glsl);
}

}  // namespace gpgpu::primitives
