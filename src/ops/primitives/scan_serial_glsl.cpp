// The serial scan for CPU devices (llvmpipe): each invocation owns a contiguous run of
// elements and walks it sequentially, reading through buffer textures (vector gathers
// there) with no shared memory and no barriers (coroutine switches there). Reduce-then-scan:
// run totals (mode 0), the small scan of them (scan_source's mode 3), the runs (mode 1).
// Without buffer textures (OpenGL ES 3.1 without GL_EXT_texture_buffer) they read storage
// blocks.
#include <fmt/format.h>

#include "glsl_ops.hpp"
#include "scan_glsl.hpp"

namespace gpgpu::primitives {

namespace {

// Needs S, S4, T, C, L, MODE, LOAD4/LOAD1 (input_glsl), opt(). Elements [begin, end) of the
// invocation's run; with vec4_io whole vec4s of 4 / C elements (C = 1, 2, 4), the rest one
// element at a time. llvmpipe ends an invocation's loops silently once all of them together
// have run 65535 trips, so a run is at most 8192 elements and has no inner loops but the
// <= 4 trips over a vec4's elements.
const char* const serial_glsl = R"(
layout(local_size_x = L) in;
layout(std430, binding = 2) writeonly buffer Out4 { S4 out4[]; };
layout(std430, binding = 3) writeonly buffer Out1 { S out1[]; };
layout(std430, binding = 4) buffer TileValues { S tile_values[]; };
uniform uint in_first;   // scalars
uniform uint out_first;  // scalars
uniform uint count;      // elements
uniform uint chunk;      // elements per invocation, a multiple of 4
uniform uint tiles;      // invocations with elements
uniform bool vec4_io;
uniform bool inclusive;

T load_value(uint i) {
#if C == 1
  return tile_values[i];
#else
  T v;
  for (uint q = 0u; q < uint(C); ++q) v[q] = tile_values[i + q];
  return v;
#endif
}
void store_value(uint i, T v) {
#if C == 1
  tile_values[i] = v;
#else
  for (uint q = 0u; q < uint(C); ++q) tile_values[i + q] = v[q];
#endif
}
// No loops over components: llvmpipe counts every loop trip of an invocation against one
// budget of 65535.
T load_element(uint e) {
  uint b = in_first + e * uint(C);
#if C == 1
  return LOAD1(b);
#elif C == 2
  return T(LOAD1(b), LOAD1(b + 1u));
#elif C == 3
  return T(LOAD1(b), LOAD1(b + 1u), LOAD1(b + 2u));
#else
  return T(LOAD1(b), LOAD1(b + 1u), LOAD1(b + 2u), LOAD1(b + 3u));
#endif
}
void store_element(uint e, T v) {
  uint b = out_first + e * uint(C);
#if C == 1
  out1[b] = v;
#else
  out1[b] = v.x;
  out1[b + 1u] = v.y;
#if C >= 3
  out1[b + 2u] = v.z;
#endif
#if C == 4
  out1[b + 3u] = v.w;
#endif
#endif
}

// The invocation's element at position k of a vec4 x (C = 1, 2 or 4).
#if C == 1
#define ELEMENT_OF(x, k) x[k]
#elif C == 2
#define ELEMENT_OF(x, k) ((k) == 0u ? x.xy : x.zw)
#else
#define ELEMENT_OF(x, k) x
#endif

void main() {
  uint inv = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * uint(L);
  if (inv >= tiles) return;
  uint begin = inv * chunk;
  uint end = min(begin + chunk, count);
#if MODE == 0
  T run = opt_identity();
#else
  T run = load_value(inv * uint(C));
#endif
  uint e = begin;
#if C != 3
  if (vec4_io) {
    const uint per = uint(4 / C);
    for (; e + per <= end; e += per) {
      S4 x = LOAD4((in_first + e * uint(C)) >> 2u);
#if MODE == 0
      for (uint k = 0u; k < per; ++k) run = opt(run, ELEMENT_OF(x, k));
#else
      S4 y;
      for (uint k = 0u; k < per; ++k) {
        T next = opt(run, ELEMENT_OF(x, k));
        T r = inclusive ? next : run;
#if C == 1
        y[k] = r;
#elif C == 2
        if (k == 0u) y.xy = r; else y.zw = r;
#else
        y = r;
#endif
        run = next;
      }
      out4[(out_first + e * uint(C)) >> 2u] = y;
#endif
    }
  }
#endif
  for (; e < end; ++e) {
    T x = load_element(e);
#if MODE == 0
    run = opt(run, x);
#else
    T next = opt(run, x);
    store_element(e, inclusive ? next : run);
    run = next;
#endif
  }
#if MODE == 0
  store_value(inv * uint(C), run);
#endif
}
)";

// With 4 storage blocks (OpenGL ES 3.1's minimum): no vec4 view of the output (a vec4 is
// stored as scalars), the blocks from binding 0 on (the input, if a block, at 0).
std::string narrow_serial_glsl() {
  std::string s = serial_glsl;
  patch(s, "layout(std430, binding = 2) writeonly buffer Out4 { S4 out4[]; };\n", "");
  patch(s, "binding = 3) writeonly buffer Out1", "binding = 1) writeonly buffer Out1");
  patch(s, "binding = 4) buffer TileValues", "binding = 2) buffer TileValues");
  patch(s, "      out4[(out_first + e * uint(C)) >> 2u] = y;\n",
        "      uint o = out_first + e * uint(C);\n"
        "      out1[o] = y.x; out1[o + 1u] = y.y; out1[o + 2u] = y.z; out1[o + 3u] = y.w;\n");
  return s;
}

}  // namespace

std::string scan_serial_source(ElementType type, int components, const Operator& op, ScanMode mode,
                               int local, Loads loads, bool narrow) {
  const std::string t = element_type(type, components);
  std::string source = fmt::format(
      "#define S {}\n#define S4 {}\n#define T {}\n#define C {}\n#define L {}\n#define MODE {}\n",
      scalar_type(type), vec4_type(type), t, components, local, static_cast<int>(mode));
  source += input_glsl(type, narrow && loads == Loads::Storage ? Loads::Scalars : loads, 0);
  source += op_functions(op, type, t, "opt");
  source += narrow ? narrow_serial_glsl() : std::string(serial_glsl);
  return source;
}

}  // namespace gpgpu::primitives
