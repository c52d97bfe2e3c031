#include "scan_glsl.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "glsl_ops.hpp"

namespace gpgpu::primitives {

// Needs: T, L, RAKE, opt(), opt_identity(). Raking block scan: L / RAKE invocations each scan
// RAKE thread sums sequentially, one invocation scans their totals, everyone combines. Three
// barriers; operand order is kept, so any associative operator works.
const char* const block_scan_glsl = R"(
shared T thread_sums[L];
shared T rake_sums[L / RAKE];
shared T tile_total;
// The exclusive prefix of `own` among the work group's invocations; sets tile_total.
T block_exclusive(T own, uint lid) {
  thread_sums[lid] = own;
  barrier();
  if (lid < uint(L / RAKE)) {
    T run = opt_identity();
    for (uint k = 0u; k < uint(RAKE); ++k) {
      uint i = lid * uint(RAKE) + k;
      T v = thread_sums[i];
      thread_sums[i] = run;
      run = opt(run, v);
    }
    rake_sums[lid] = run;
  }
  barrier();
  if (lid == 0u) {
    T run = opt_identity();
    for (uint k = 0u; k < uint(L / RAKE); ++k) {
      T v = rake_sums[k];
      rake_sums[k] = run;
      run = opt(run, v);
    }
    tile_total = run;
  }
  barrier();
  return opt(rake_sums[lid / uint(RAKE)], thread_sums[lid]);
}
)";

namespace {

// Needs: S, S4, T, C, SPT, L, MODE. Tiles of L * SPT scalars go through shared
// memory: loaded coalesced (as vec4 where aligned), scanned per invocation over SPT
// consecutive scalars, stored coalesced. sh is padded by one word per 32 so that the
// per-invocation accesses (stride SPT) do not all hit one bank.
const char* const tile_glsl = R"(
#define TILE (L * SPT)
layout(local_size_x = L) in;
#if MODE != 3
layout(std430, binding = 0) readonly buffer In4 { S4 in4[]; };
layout(std430, binding = 1) readonly buffer In1 { S in1[]; };
uniform uint in_first;
uniform uint total;
uniform bool vec4_io;    // in_first and out_first are multiples of 4: full tiles move as vec4
#endif
#if MODE == 1 || MODE == 2
layout(std430, binding = 2) writeonly buffer Out4 { S4 out4[]; };
layout(std430, binding = 3) writeonly buffer Out1 { S out1[]; };
uniform uint out_first;
uniform bool inclusive;
#endif
layout(std430, binding = 4) coherent buffer TileValues { S tile_values[]; };
#if MODE == 2
layout(std430, binding = 5) coherent buffer TileFlags { uint tile_flags[]; };
uniform uint epoch;
#endif
uniform uint tiles;

T load_value(uint i) {
#if C == 1
  return tile_values[i];
#elif C == 2
  return T(tile_values[i], tile_values[i + 1u]);
#elif C == 3
  return T(tile_values[i], tile_values[i + 1u], tile_values[i + 2u]);
#else
  return T(tile_values[i], tile_values[i + 1u], tile_values[i + 2u], tile_values[i + 3u]);
#endif
}
void store_value(uint i, T v) {
#if C == 1
  tile_values[i] = v;
#else
  for (uint q = 0u; q < uint(C); ++q) tile_values[i + q] = v[q];
#endif
}

#if MODE != 3
shared S sh[TILE + TILE / 32];
uint pad(uint i) { return i + (i >> 5u); }
T element_at(uint b) {
#if C == 1
  return sh[pad(b)];
#elif C == 2
  return T(sh[pad(b)], sh[pad(b + 1u)]);
#elif C == 3
  return T(sh[pad(b)], sh[pad(b + 1u)], sh[pad(b + 2u)]);
#else
  return T(sh[pad(b)], sh[pad(b + 1u)], sh[pad(b + 2u)], sh[pad(b + 3u)]);
#endif
}
void store_element(uint b, T v) {
#if C == 1
  sh[pad(b)] = v;
#else
  for (uint q = 0u; q < uint(C); ++q) sh[pad(b + q)] = v[q];
#endif
}

void load_tile(uint ts, uint count, uint lid) {
  if (vec4_io && count == uint(TILE)) {
    uint base = (in_first + ts) >> 2u;
    for (uint j = 0u; j < uint(SPT / 4); ++j) {
      uint v = lid + j * uint(L);
      S4 x = in4[base + v];
      uint p = pad(4u * v);
      sh[p] = x.x; sh[p + 1u] = x.y; sh[p + 2u] = x.z; sh[p + 3u] = x.w;
    }
    return;
  }
  for (uint j = 0u; j < uint(SPT); ++j) {
    uint i = lid + j * uint(L);
    if (i < count) sh[pad(i)] = in1[in_first + ts + i];
  }
}

// This invocation's SPT scalars: elements [lid * SPT / C, (lid + 1) * SPT / C) of the tile.
T thread_reduce(uint lid, uint count) {
  T acc = opt_identity();
  for (uint e = 0u; e < uint(SPT / C); ++e) {
    uint b = lid * uint(SPT) + e * uint(C);
    if (b < count) acc = opt(acc, element_at(b));
  }
  return acc;
}
#endif

#if MODE == 1 || MODE == 2
void thread_scan(T prefix, uint lid, uint count) {
  T run = prefix;
  for (uint e = 0u; e < uint(SPT / C); ++e) {
    uint b = lid * uint(SPT) + e * uint(C);
    if (b < count) {
      T next = opt(run, element_at(b));
      store_element(b, inclusive ? next : run);
      run = next;
    }
  }
}

void store_tile(uint ts, uint count, uint lid) {
  if (vec4_io && count == uint(TILE)) {
    uint base = (out_first + ts) >> 2u;
    for (uint j = 0u; j < uint(SPT / 4); ++j) {
      uint v = lid + j * uint(L);
      uint p = pad(4u * v);
      out4[base + v] = S4(sh[p], sh[p + 1u], sh[p + 2u], sh[p + 3u]);
    }
    return;
  }
  for (uint j = 0u; j < uint(SPT); ++j) {
    uint i = lid + j * uint(L);
    if (i < count) out1[out_first + ts + i] = sh[pad(i)];
  }
}
#endif
)";

// Decoupled look-back (Merrill & Garland): a tile publishes its total (state A), then walks
// back over its predecessors W at a time until one has published its inclusive prefix
// (state P), adds what it passed, and publishes its own inclusive prefix. Flags carry the
// call's epoch, so flags left by earlier calls read as "not ready" and need no clearing.
// The waits are bounded nested loops (65535^2 polls), as llvmpipe caps every loop.
const char* const look_back_glsl = R"(
#if MODE == 2
const uint FLAG_A = 1u;
const uint FLAG_P = 2u;
const uint BEYOND = 3u;
shared uint window_state[W];
shared T window_value[W];
shared uint lb_end;
shared T lb_prefix;
shared T tile_prefix;

void publish(uint tile, T v, uint state) {
  store_value((2u * tile + (state == FLAG_P ? 1u : 0u)) * uint(C), v);
  memoryBarrierBuffer();
  atomicExchange(tile_flags[1u + tile], (epoch << 2u) | state);
}

void read_window(uint end, uint lid) {
  if (lid >= uint(W)) return;
  uint state = BEYOND;
  T v = opt_identity();
  if (lid < end) {
    uint k = end - 1u - lid;
    uint f = atomicOr(tile_flags[1u + k], 0u);
    state = (f >> 2u) == epoch ? (f & 3u) : 0u;
    if (state != 0u) {
      memoryBarrierBuffer();
      v = load_value((2u * k + (state == FLAG_P ? 1u : 0u)) * uint(C));
    }
  }
  window_state[lid] = state;
  window_value[lid] = v;
}

// Invocation 0 folds the window from the newest tile back: totals are prepended (operand
// order kept) until a prefix ends the walk or a tile that is not ready stops it.
void fold_window(uint end) {
  T acc = lb_prefix;
  uint next = end > uint(W) ? end - uint(W) : 0u;
  for (uint w = 0u; w < uint(W); ++w) {
    uint state = window_state[w];
    if (state == 0u) { next = end - w; break; }
    if (state == BEYOND) { next = 0u; break; }
    acc = opt(window_value[w], acc);
    if (state == FLAG_P) { next = 0u; break; }
  }
  lb_prefix = acc;
  lb_end = next;
}

void look_back(uint tile, uint lid) {
  if (lid == 0u) {
    publish(tile, tile_total, tile == 0u ? FLAG_P : FLAG_A);
    lb_prefix = opt_identity();
    lb_end = tile;
  }
  barrier();
  for (uint outer = 0u; outer < 65535u; ++outer) {
    for (uint inner = 0u; inner < 65535u; ++inner) {
      uint end = lb_end;
      if (end == 0u) break;
      read_window(end, lid);
      barrier();
      if (lid == 0u) fold_window(end);
      barrier();
    }
    if (lb_end == 0u) break;
  }
  if (lid == 0u) {
    tile_prefix = lb_prefix;
    if (tile != 0u) publish(tile, opt(lb_prefix, tile_total), FLAG_P);
  }
  barrier();
}
#endif
)";

const char* const main_glsl = R"(
#if MODE == 3
uniform uint per_thread;
void main() {
  uint lid = gl_LocalInvocationID.x;
  uint begin = lid * per_thread;
  T acc = opt_identity();
  for (uint k = 0u; k < per_thread; ++k) {
    uint i = begin + k;
    if (i < tiles) acc = opt(acc, load_value(i * uint(C)));
  }
  T run = block_exclusive(acc, lid);
  for (uint k = 0u; k < per_thread; ++k) {
    uint i = begin + k;
    if (i < tiles) {
      T v = load_value(i * uint(C));
      store_value(i * uint(C), run);
      run = opt(run, v);
    }
  }
}
#else
#if MODE == 1
shared T tile_prefix;
#endif
#if MODE == 2
shared uint tile_id;
#endif
void main() {
  uint lid = gl_LocalInvocationID.x;
  uint linear = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (linear >= tiles) return;
#if MODE == 2
  if (lid == 0u) tile_id = atomicAdd(tile_flags[0], 1u);
  barrier();
  uint tile = tile_id;
#else
  uint tile = linear;
#endif
  uint ts = tile * uint(TILE);
  uint count = min(uint(TILE), total - ts);
  load_tile(ts, count, lid);
  barrier();
  T ex = block_exclusive(thread_reduce(lid, count), lid);
#if MODE == 0
  if (lid == 0u) store_value(tile * uint(C), tile_total);
#else
#if MODE == 1
  if (lid == 0u) tile_prefix = load_value(tile * uint(C));
  barrier();
#else
  look_back(tile, lid);
#endif
  thread_scan(opt(tile_prefix, ex), lid, count);
  barrier();
  store_tile(ts, count, lid);
#if MODE == 2
  // Every tile has taken its number once the last one has: reset the counter for next time.
  if (tile == tiles - 1u && lid == 0u) atomicExchange(tile_flags[0], 0u);
#endif
#endif
}
#endif
)";

// The tile kernels with 4 storage blocks (OpenGL ES 3.1's minimum): the vec4 views of the
// input and output go, a tile moves as vec4s of scalar loads and stores, and the blocks
// take bindings 0-3.
std::string narrow_tile_glsl() {
  std::string s = tile_glsl;
  patch(s, "layout(std430, binding = 0) readonly buffer In4 { S4 in4[]; };\n", "");
  patch(s, "binding = 1) readonly buffer In1", "binding = 0) readonly buffer In1");
  patch(s, "layout(std430, binding = 2) writeonly buffer Out4 { S4 out4[]; };\n", "");
  patch(s, "binding = 3) writeonly buffer Out1", "binding = 1) writeonly buffer Out1");
  patch(s, "binding = 4) coherent buffer TileValues", "binding = 2) coherent buffer TileValues");
  patch(s, "binding = 5) coherent buffer TileFlags", "binding = 3) coherent buffer TileFlags");
  patch(s, "      S4 x = in4[base + v];\n",
        "      uint q = 4u * (base + v);\n"
        "      S4 x = S4(in1[q], in1[q + 1u], in1[q + 2u], in1[q + 3u]);\n");
  patch(s, "      out4[base + v] = S4(sh[p], sh[p + 1u], sh[p + 2u], sh[p + 3u]);\n",
        "      uint q = 4u * (base + v);\n"
        "      out1[q] = sh[p]; out1[q + 1u] = sh[p + 1u]; out1[q + 2u] = sh[p + 2u]; "
        "out1[q + 3u] = sh[p + 3u];\n");
  return s;
}

// Bytes of one T in shared memory (a vec3 takes a vec4's 16, as in arrays).
std::int64_t element_bytes(int components) {
  return components == 1 ? 4 : components == 2 ? 8 : 16;
}

}  // namespace

ScanShape scan_shape(const PrimitiveTuning& t, int components) {
  ScanShape s;
  s.local = t.scan_local;
  // A multiple of 4 (vec4 moves) and of the components: 12 for vec3 elements.
  s.scalars = components == 3 ? std::max(12, t.scan_scalars / 12 * 12) : t.scan_scalars;
  // Fewer than 12 scalars asked for: the vec3 tile takes fewer invocations, so that it is no
  // larger than the tuning's (whose shared memory was checked).
  while (s.scalars > t.scan_scalars && s.local > 32 &&
         s.local * s.scalars > t.scan_local * t.scan_scalars) {
    s.local /= 2;
  }
  s.rake = 8;
  s.window = std::min(32, s.local);
  return s;
}

std::int64_t scan_shared_bytes(const ScanShape& shape, int components, ScanMode mode) {
  const std::int64_t t = element_bytes(components), l = shape.local;
  const std::int64_t tile = l * shape.scalars;
  std::int64_t bytes = t * (l + l / shape.rake + 1);  // thread_sums, rake_sums, tile_total
  if (mode != ScanMode::SmallScan) bytes += 4 * (tile + tile / 32);  // sh
  if (mode == ScanMode::TileDownsweep) bytes += t;                   // tile_prefix
  if (mode == ScanMode::LookBack) {
    // window_state, window_value, lb_end, lb_prefix, tile_prefix, tile_id
    bytes += shape.window * (4 + t) + 4 + 2 * t + 4;
  }
  return bytes;
}

std::string scan_source(ElementType type, int components, const Operator& op, ScanMode mode,
                        const ScanShape& shape, bool narrow) {
  const std::string t = element_type(type, components);
  std::string source = fmt::format(
      "#define S {}\n#define S4 {}\n#define T {}\n#define C {}\n#define SPT {}\n#define L {}\n"
      "#define RAKE {}\n#define W {}\n#define MODE {}\n",
      scalar_type(type), vec4_type(type), t, components, shape.scalars, shape.local, shape.rake,
      shape.window, static_cast<int>(mode));
  source += op_functions(op, type, t, "opt");
  source += narrow ? narrow_tile_glsl() : std::string(tile_glsl);
  source += block_scan_glsl;
  source += look_back_glsl;
  source += main_glsl;
  return source;
}

}  // namespace gpgpu::primitives
