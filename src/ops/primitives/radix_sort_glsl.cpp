#include "radix_sort_glsl.hpp"

#include <fmt/format.h>

#include "glsl_ops.hpp"

namespace gpgpu::primitives {

// Needs KT (the key's GLSL type) and KEY_KIND (0 uint, 1 int, 2 float). The radix key is an
// unsigned integer whose order is the wanted order: floats map -inf < negatives < -0 = +0 <
// positives < +inf < NaN (all NaNs equal, last in both directions), ints flip the sign bit;
// descending complements every key but the NaNs'.
// The scatter kernels' keys and values (bindings 0, 1 and VALUES_IN_BINDING,
// VALUES_OUT_BINDING) and the uniforms they share.
const char* const sort_io_glsl = R"(
layout(std430, binding = 0) readonly buffer KeysIn { KT keys_in[]; };
layout(std430, binding = 1) writeonly buffer KeysOut { KT keys_out[]; };
#if WITH_VALUES
layout(std430, binding = VALUES_IN_BINDING) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = VALUES_OUT_BINDING) writeonly buffer ValuesOut { uint values_out[]; };
uniform uint vin_first;
uniform uint vout_first;
uniform bool iota_values;
uniform uint iota_base;
#endif
uniform uint in_first;
uniform uint out_first;
uniform uint count;
uniform uint tiles;
)";

const char* const sort_key_glsl = R"(
uniform uint shift;
uniform bool descending;
uint key_bits(KT k) {
#if KEY_KIND == 2
  return floatBitsToUint(k);
#else
  return uint(k);
#endif
}
KT key_from_bits(uint b) {
#if KEY_KIND == 2
  return uintBitsToFloat(b);
#elif KEY_KIND == 1
  return int(b);
#else
  return b;
#endif
}
uint radix_key(uint bits) {
#if KEY_KIND == 2
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return 0xFFFFFFFFu;
  if (bits == 0x80000000u) bits = 0u;
  uint k = (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
#elif KEY_KIND == 1
  uint k = bits ^ 0x80000000u;
#else
  uint k = bits;
#endif
  return descending ? ~k : k;
}
uint digit_of(uint bits) { return (radix_key(bits) >> shift) & 255u; }
)";

namespace {

const char* const upsweep_glsl = R"(
layout(local_size_x = L) in;
layout(std430, binding = 0) readonly buffer KeysIn { KT keys_in[]; };
layout(std430, binding = 1) writeonly buffer Counts { uint counts[]; };
uniform uint in_first;
uniform uint count;
uniform uint tiles;
shared uint hist[256];
void main() {
  uint lid = gl_LocalInvocationID.x;
  uint tile = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (tile >= tiles) return;
  for (uint d = lid; d < 256u; d += uint(L)) hist[d] = 0u;
  barrier();
  uint base = tile * uint(L * K);
  for (uint r = 0u; r < uint(K); ++r) {
    uint i = base + r * uint(L) + lid;
    if (i < count) atomicAdd(hist[digit_of(key_bits(keys_in[in_first + i]))], 1u);
  }
  barrier();
  for (uint d = lid; d < 256u; d += uint(L)) counts[d * tiles + tile] = hist[d];
}
)";

// Ranking: K rounds of L keys (key r * L + lid of the tile in round r, so rounds and
// invocations follow the keys' order). In a round each key sets its invocation's bit in
// its digit's mask; its rank among equal digits is the number of lower bits set, plus the
// digit's count in earlier rounds, plus the digit's start in the tile. Two mask sets
// alternate so that one barrier per round separates setting from reading, and the last
// invocation of each digit clears its masks and advances its count behind the next
// round's first barrier.
const char* const downsweep_glsl = R"(
#define TILE (L * K)
#define WORDS (L / 32)
layout(local_size_x = L) in;
layout(std430, binding = 2) readonly buffer Offsets { uint offsets[]; };
#define VALUES_IN_BINDING 3
#define VALUES_OUT_BINDING 4
SORT_IO

shared uint smem[TILE];          // rank masks, then the tile in sorted order
shared uint digit_start[256];    // the digit's first position in the sorted tile
shared uint running[256];        // the tile histogram, then counts of earlier rounds
shared uint global_base[256];    // where the digit's run of this tile goes
shared uint rake16[16];

// running[] holds the tile histogram; digit_start becomes its exclusive scan (16 rakers).
void scan_digits(uint lid) {
  if (lid < 16u) {
    uint run = 0u;
    for (uint k = 0u; k < 16u; ++k) {
      uint d = lid * 16u + k;
      uint c = running[d];
      digit_start[d] = run;
      run += c;
    }
    rake16[lid] = run;
  }
  barrier();
  if (lid == 0u) {
    uint run = 0u;
    for (uint k = 0u; k < 16u; ++k) {
      uint c = rake16[k];
      rake16[k] = run;
      run += c;
    }
  }
  barrier();
  if (lid < 16u) {
    for (uint k = 0u; k < 16u; ++k) digit_start[lid * 16u + k] += rake16[lid];
  }
  for (uint d = lid; d < 256u; d += uint(L)) running[d] = 0u;
  for (uint i = lid; i < uint(2 * 256 * WORDS); i += uint(L)) smem[i] = 0u;
  barrier();
}

void main() {
  uint lid = gl_LocalInvocationID.x;
  uint tile = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (tile >= tiles) return;
  uint base = tile * uint(TILE);
  uint tile_count = min(uint(TILE), count - base);

  uint bits[K];
  uint digit[K];
  for (uint d = lid; d < 256u; d += uint(L)) {
    running[d] = 0u;
    global_base[d] = offsets[d * tiles + tile];
  }
  barrier();
  for (uint r = 0u; r < uint(K); ++r) {
    uint i = r * uint(L) + lid;
    bits[r] = i < tile_count ? key_bits(keys_in[in_first + base + i]) : 0u;
    digit[r] = i < tile_count ? digit_of(bits[r]) : 256u;
    if (digit[r] < 256u) atomicAdd(running[digit[r]], 1u);
  }
  barrier();
  scan_digits(lid);

  uint pos[K];
  uint word = lid >> 5u;
  uint bit = 1u << (lid & 31u);
  for (uint r = 0u; r < uint(K); ++r) {
    uint set = (r & 1u) * uint(256 * WORDS);
    uint d = digit[r];
    uint m0 = set + d * uint(WORDS);
    if (d < 256u) atomicOr(smem[m0 + word], bit);
    barrier();
    bool last = true;
    uint total = 0u;
    if (d < 256u) {
      uint below = 0u;
      for (uint j = 0u; j < uint(WORDS); ++j) {
        uint m = smem[m0 + j];
        uint c = uint(bitCount(m));
        total += c;
        if (j < word) below += c;
        if (j == word) {
          below += uint(bitCount(m & (bit - 1u)));
          if ((m & ~(bit | (bit - 1u))) != 0u) last = false;
        }
        if (j > word && m != 0u) last = false;
      }
      pos[r] = digit_start[d] + running[d] + below;
    }
    barrier();
    if (d < 256u && last) {
      running[d] += total;
      for (uint j = 0u; j < uint(WORDS); ++j) smem[m0 + j] = 0u;
    }
  }
  barrier();

  for (uint r = 0u; r < uint(K); ++r) {
    if (digit[r] < 256u) smem[pos[r]] = bits[r];
  }
  barrier();
  uint dest[K];
  for (uint r = 0u; r < uint(K); ++r) {
    uint j = r * uint(L) + lid;
    if (j < tile_count) {
      uint b = smem[j];
      uint d = digit_of(b);
      dest[r] = global_base[d] + j - digit_start[d];
      keys_out[out_first + dest[r]] = key_from_bits(b);
    }
  }
#if WITH_VALUES
  barrier();
  for (uint r = 0u; r < uint(K); ++r) {
    if (digit[r] < 256u) {
      uint i = base + r * uint(L) + lid;
      smem[pos[r]] = iota_values ? iota_base + i : values_in[vin_first + i];
    }
  }
  barrier();
  for (uint r = 0u; r < uint(K); ++r) {
    uint j = r * uint(L) + lid;
    if (j < tile_count) values_out[vout_first + dest[r]] = smem[j];
  }
#endif
}
)";

const char* const serial_glsl = R"(
layout(local_size_x = L) in;
#if TEXELS
uniform highp KSAMPLER keys_texels;
#define LOAD_KEY(i) texelFetch(keys_texels, int(i)).x
#else
layout(std430, binding = 0) readonly buffer KeysIn { KT keys_in[]; };
#define LOAD_KEY(i) keys_in[i]
#endif
#if UPSWEEP
layout(std430, binding = 1) writeonly buffer Counts { uint counts[]; };
#else
layout(std430, binding = 1) writeonly buffer KeysOut { KT keys_out[]; };
layout(std430, binding = 2) readonly buffer Offsets { uint offsets[]; };
uniform uint out_first;
#if WITH_VALUES
#if TEXELS
uniform highp usamplerBuffer values_texels;
#define LOAD_VALUE(i) texelFetch(values_texels, int(i)).x
#else
layout(std430, binding = 3) readonly buffer ValuesIn { uint values_in[]; };
#define LOAD_VALUE(i) values_in[i]
#endif
layout(std430, binding = 4) writeonly buffer ValuesOut { uint values_out[]; };
uniform uint vin_first;
uniform uint vout_first;
uniform bool iota_values;
uniform uint iota_base;
#endif
#endif
uniform uint in_first;
uniform uint count;
uniform uint tiles;
shared uint next[L * 256];
void main() {
  uint lid = gl_LocalInvocationID.x;
  uint tile = (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * uint(L) + lid;
  if (tile >= tiles) return;
  uint h = lid * 256u;
  uint base = tile * uint(K);
  uint end = min(base + uint(K), count);
#if UPSWEEP
  for (uint d = 0u; d < 256u; ++d) next[h + d] = 0u;
  for (uint i = base; i < end; ++i) next[h + digit_of(key_bits(LOAD_KEY(in_first + i)))] += 1u;
  for (uint d = 0u; d < 256u; ++d) counts[d * tiles + tile] = next[h + d];
#else
  for (uint d = 0u; d < 256u; ++d) next[h + d] = offsets[d * tiles + tile];
  for (uint i = base; i < end; ++i) {
    KT key = LOAD_KEY(in_first + i);
    uint slot = h + digit_of(key_bits(key));
    uint dest = next[slot];
    next[slot] = dest + 1u;
    keys_out[out_first + dest] = key;
#if WITH_VALUES
    values_out[vout_first + dest] = iota_values ? iota_base + i : LOAD_VALUE(vin_first + i);
#endif
  }
#endif
}
)";

// The values-only scatter (4 storage blocks): no keys' output, the values' at binding 1.
std::string values_only_downsweep() {
  std::string s = with_sort_io(downsweep_glsl);
  patch(s, "#define VALUES_OUT_BINDING 4", "#define VALUES_OUT_BINDING 1");
  patch(s, "layout(std430, binding = 1) writeonly buffer KeysOut { KT keys_out[]; };\n", "");
  patch(s, "      keys_out[out_first + dest[r]] = key_from_bits(b);\n", "");
  return s;
}

std::string values_only_serial() {
  std::string s = serial_glsl;
  patch(s, "layout(std430, binding = 1) writeonly buffer KeysOut { KT keys_out[]; };\n", "");
  patch(s, "binding = 4) writeonly buffer ValuesOut", "binding = 1) writeonly buffer ValuesOut");
  patch(s, "    keys_out[out_first + dest] = key;\n", "");
  return s;
}

}  // namespace

SortShape sort_shape(const PrimitiveTuning& t) {
  SortShape s;
  s.serial = t.sort_serial == 1;
  s.local = t.sort_local;
  s.keys = t.sort_keys;
  s.texels = s.serial && t.texel_loads == 1;
  return s;
}

std::int64_t sort_shared_bytes(const SortShape& shape) {
  // Serial: 256 counters per invocation. Ranked: the tile, three digit tables, 16 rakers.
  if (shape.serial) return 1024 * std::int64_t{shape.local};
  return 4 * (std::int64_t{shape.local} * shape.keys + 3 * 256 + 16);
}

std::string with_sort_io(std::string kernel) {
  kernel.replace(kernel.find("SORT_IO"), 7, sort_io_glsl);
  return kernel;
}

std::string sort_header(ElementType key_type, const SortShape& shape, bool with_values) {
  const int kind = key_type == ElementType::Uint32 ? 0 : key_type == ElementType::Int32 ? 1 : 2;
  const char* sampler = kind == 0   ? "usamplerBuffer"
                        : kind == 1 ? "isamplerBuffer"
                                    : "samplerBuffer";
  return fmt::format(
      "#define KT {}\n#define KEY_KIND {}\n#define L {}\n#define K {}\n#define WITH_VALUES {}\n"
      "#define TEXELS {}\n#define KSAMPLER {}\n",
      scalar_type(key_type), kind, shape.local, shape.keys, with_values ? 1 : 0,
      shape.texels ? 1 : 0, sampler);
}

std::string sort_upsweep_source(ElementType key_type, const SortShape& shape) {
  return sort_header(key_type, shape, false) + sort_key_glsl + upsweep_glsl;
}

std::string sort_downsweep_source(ElementType key_type, bool with_values, const SortShape& shape,
                                  bool values_only) {
  return sort_header(key_type, shape, with_values) + sort_key_glsl +
         (values_only ? values_only_downsweep() : with_sort_io(downsweep_glsl));
}

std::string sort_serial_source(ElementType key_type, bool with_values, bool upsweep,
                               const SortShape& shape, bool values_only) {
  return sort_header(key_type, shape, with_values) +
         fmt::format("#define UPSWEEP {}\n", upsweep ? 1 : 0) + sort_key_glsl +
         (values_only ? values_only_serial() : std::string(serial_glsl));
}

}  // namespace gpgpu::primitives
