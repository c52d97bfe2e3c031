// GLSL sources of the shallow-water kernels (see model_kernels.hpp for the layout).
#include "earth/model_kernels.hpp"

#include <fmt/format.h>

namespace gpgpu::earth::detail {

namespace {

// Declarations and the corner interpolation shared by the tendency kernel's variants.
// Their tendencies go to `tend`, declared by each variant.
constexpr const char* tendency_head = R"(
#pragma optionNV(unroll all)
layout(local_size_x = {0}) in;
layout(std430, binding = 0) readonly buffer State {{ vec4 state[]; }};
layout(std430, binding = 1) readonly buffer Position {{ vec4 position[]; }};
layout(std430, binding = 2) readonly buffer Slot {{ ivec4 slot[]; }};
layout(std430, binding = 3) readonly buffer InvArea {{ float inv_area[]; }};
uniform float mean_depth;     // m: the state holds h - mean_depth
uniform float gravity;        // m/s^2
uniform vec3 coriolis_axis;   // 2 Omega times the Coriolis axis (1/s)
uniform float radius;         // m
uniform uint first;           // the first cell of this dispatch (local index)
uniform uint stride;          // cells per row of the slot-major tables

// A control-volume corner: the mean of three cells.
struct Corner {{
  vec3 x;     // position (unit)
  float h;    // total depth
  vec3 u;     // velocity, tangent at x
  float phi;  // g (h' + surface) + |u|^2 / 2
}};

float potential(vec4 s, vec4 p) {{ return gravity * s.x + p.w + 0.5 * dot(s.yzw, s.yzw); }}

Corner corner_of(vec4 s0, vec4 p0, float f0, vec4 s1, vec4 p1, float f1, vec4 s2, vec4 p2,
                 float f2) {{
  Corner c;
  c.x = normalize(p0.xyz + p1.xyz + p2.xyz);
  vec4 s = (s0 + s1 + s2) * (1.0 / 3.0);
  c.h = mean_depth + s.x;
  c.u = s.yzw - dot(s.yzw, c.x) * c.x;
  c.phi = (f0 + f1 + f2) * (1.0 / 3.0);
  return c;
}}
)";

// One invocation per cell: gathers the six neighbours, walks the six corners once and
// sums the edge terms of the divergence, gradient and curl (see operators.hpp). Two ways to
// gather: PRELOAD fetches all six neighbours first (more loads in flight, more registers);
// otherwise one neighbour per corner as the walk goes round (fewer registers).
constexpr const char* tendency_body = R"(
void main() {
  if (gpgpu_index() >= gpgpu_count) return;
  uint i = first + gpgpu_index();
  uint n = stride;
  vec4 s = state[i];
  vec4 p = position[i];
  float f = potential(s, p);
  float div = 0.0, circulation = 0.0;
  vec3 grad = vec3(0.0);
#ifdef PRELOAD
  ivec4 q[6];
  vec4 ns[6], np[6];
  float nf[6];
  for (int k = 0; k < 6; ++k) {
    q[k] = slot[uint(k) * n + i];
    ns[k] = state[q[k].w];
    np[k] = position[q[k].w];
    nf[k] = potential(ns[k], np[k]);
  }
  // A pentagon repeats neighbour 0 in slot 5: its last corner is (cell, nb 4, nb 0).
  bool pentagon = q[5].w == q[0].w;
  Corner prev = corner_of(s, p, f, pentagon ? ns[4] : ns[5], pentagon ? np[4] : np[5],
                          pentagon ? nf[4] : nf[5], ns[0], np[0], nf[0]);
  for (int k = 0; k < 6; ++k) {
    int k1 = k == 5 ? 0 : k + 1;
    Corner cur = corner_of(s, p, f, ns[k], np[k], nf[k], ns[k1], np[k1], nf[k1]);
    vec3 nl = intBitsToFloat(q[k].xyz);
#else
  ivec4 q0 = slot[i];
  ivec4 q5 = slot[5u * n + i];
  // A pentagon repeats neighbour 0 in slot 5: its last corner is (cell, nb 4, nb 0).
  int last = q5.w == q0.w ? slot[4u * n + i].w : q5.w;
  vec4 s0 = state[q0.w], p0 = position[q0.w];
  float f0 = potential(s0, p0);
  vec4 sl = state[last], pl = position[last];
  Corner prev = corner_of(s, p, f, sl, pl, potential(sl, pl), s0, p0, f0);
  ivec4 qa = q0;
  vec4 sa = s0, pa = p0;
  float fa = f0;
  for (int k = 0; k < 6; ++k) {
    ivec4 qb = k == 5 ? q0 : slot[uint(k + 1) * n + i];
    vec4 sb = k == 5 ? s0 : state[qb.w];
    vec4 pb = k == 5 ? p0 : position[qb.w];
    float fb = k == 5 ? f0 : potential(sb, pb);
    Corner cur = corner_of(s, p, f, sa, pa, fa, sb, pb, fb);
    vec3 nl = intBitsToFloat(qa.xyz);
    qa = qb;
    sa = sb;
    pa = pb;
    fa = fb;
#endif
    div += dot(nl, prev.h * prev.u + cur.h * cur.u);
#ifndef ADVECTION_ONLY
    vec3 tl = cross(normalize(prev.x + cur.x), nl);
    circulation += dot(tl, prev.u + cur.u);
    grad += nl * (prev.phi + cur.phi - 2.0 * f);
#endif
    prev = cur;
  }
  float scale = 0.5 * inv_area[i];
  vec3 r = p.xyz;
  float zeta = circulation * scale;
  float fc = dot(r, coriolis_axis);
#if defined(DIAGNOSE)
  float area = 1.0 / (radius * inv_area[i]);  // unit-sphere area
  float h = mean_depth + s.x;
  float surface = p.w / gravity;
  float energy = 0.5 * h * dot(s.yzw, s.yzw) + gravity * h * (0.5 * h + surface);
  float q_abs = zeta + fc;
  tend[i] = vec4(area * s.x, area * energy, area * 0.5 * q_abs * q_abs / h, area * zeta);
#elif defined(ADVECTION_ONLY)
  tend[i] = vec4(-div * scale, 0.0, 0.0, 0.0);
#else
  vec3 du = -(zeta + fc) * cross(r, s.yzw) - grad * scale;
  du -= dot(du, r) * r;
  tend[i] = vec4(-div * scale, du);
#endif
}
)";

// The tendency at i with the fourth-order continuity correction: subtract c dx^2 lap(div)
// in flux form. One text for the update kernel and the fused tendency.
constexpr const char* corrected_source = R"(
vec4 corrected(uint i) {
  vec4 t = tend[tend_in + i];
  float c = 0.0;
  for (int k = 0; k < 6; ++k) {
    uint at = uint(k) * stride + i;
    c += correction[at] * (tend[tend_in + uint(neighbour[at])].x - t.x);
  }
  t.x -= c;
  return t;
}
)";

// The lanes variant's own declarations. FUSED: the previous stage's update applied where
// its result is read (a cell's input is base + next_step t', t' its corrected tendency),
// so that stage's update kernel and its dispatch go.
constexpr const char* lanes_head = R"(
#ifdef FUSED
layout(std430, binding = 4) buffer Tend { vec4 tend[]; };  // tend_in's half, tend_out's half
layout(std430, binding = 5) readonly buffer Neighbour { int neighbour[]; };
layout(std430, binding = 6) readonly buffer Correction { float correction[]; };
layout(std430, binding = 7) buffer Acc { vec4 acc[]; };
uniform uint tend_in;     // where the previous stage's tendencies start in tend
uniform uint tend_out;    // where this stage's go
uniform int prev_stage;   // the stage whose update this applies (0..2)
uniform float next_step;  // the update kernel's uniforms, for prev_stage
uniform float acc_step;
#define TEND_OUT(i) tend[tend_out + (i)]
#else
layout(std430, binding = 4) writeonly buffer Tend { vec4 tend[]; };
#define TEND_OUT(i) tend[i]
#endif
)";

constexpr const char* fused_input = R"(
vec4 input_state(uint j) { return state[j] + next_step * corrected(j); }
)";
constexpr const char* plain_input = R"(
vec4 input_state(uint j) { return state[j]; }
)";

// Eight invocations a cell, for the occupancy small grids lack: lane k < 6 gathers neighbour
// k and sums edge k (two corners, each computed by both of its edges' lanes), lane 6 gathers
// the cell itself (and moves acc on, FUSED), lane 0 adds the six edges up in the serial
// kernel's order. Shared: 56 bytes an invocation.
constexpr const char* lanes_body = R"(
const uint LANES = 8u;
shared vec4 lane_state[{0}];
shared vec4 lane_place[{0}];  // position.xyz, the potential
shared int lane_cell[{0}];
shared vec4 lane_edge[{0}];   // edge k's (div, grad)
shared float lane_circulation[{0}];

void main() {{
  uint item = gpgpu_index();
  bool live = item < gpgpu_count;
  uint me = gl_LocalInvocationID.x;
  uint lane = me % LANES;
  uint base = me - lane;
  uint i = first + item / LANES;
  ivec4 q = ivec4(0, 0, 0, -1);
  if (live && lane < 6u) q = slot[lane * stride + i];
  if (live && lane == 6u) q.w = int(i);
  vec4 sj = vec4(0.0), pj = vec4(0.0);
  if (q.w >= 0) {{
    sj = input_state(uint(q.w));
    vec4 at = position[q.w];
    pj = vec4(at.xyz, potential(sj, at));
  }}
  lane_state[me] = sj;
  lane_place[me] = pj;
  lane_cell[me] = q.w;
#ifdef FUSED
  if (live && lane == 6u) {{
    vec4 t = corrected(i);
    acc[i] = (prev_stage == 0 ? state[i] : acc[i]) + acc_step * t;
  }}
#endif
  barrier();
  vec4 s = lane_state[base + 6u], p = lane_place[base + 6u];
  float f = p.w;
  vec4 edge = vec4(0.0);
  float circulation = 0.0;
  if (live && lane < 6u) {{
    // A pentagon repeats neighbour 0 in slot 5 (a zero edge): its corner before edge 0 is
    // (cell, nb 4, nb 0).
    bool pentagon = lane_cell[base + 5u] == lane_cell[base];
    uint before = lane == 0u ? base + (pentagon ? 4u : 5u) : me - 1u;
    uint after = lane == 5u ? base : me + 1u;
    Corner prev = corner_of(s, p, f, lane_state[before], lane_place[before], lane_place[before].w,
                            sj, pj, pj.w);
    Corner cur = corner_of(s, p, f, sj, pj, pj.w, lane_state[after], lane_place[after],
                           lane_place[after].w);
    vec3 nl = intBitsToFloat(q.xyz);
    edge.x = dot(nl, prev.h * prev.u + cur.h * cur.u);
#ifndef ADVECTION_ONLY
    vec3 tl = cross(normalize(prev.x + cur.x), nl);
    circulation = dot(tl, prev.u + cur.u);
    edge.yzw = nl * (prev.phi + cur.phi - 2.0 * f);
#endif
  }}
  lane_edge[me] = edge;
  lane_circulation[me] = circulation;
  barrier();
  if (!live || lane != 0u) return;
  float div = 0.0;
  circulation = 0.0;
  vec3 grad = vec3(0.0);
  for (uint k = 0u; k < 6u; ++k) {{
    div += lane_edge[base + k].x;
    circulation += lane_circulation[base + k];
    grad += lane_edge[base + k].yzw;
  }}
  float scale = 0.5 * inv_area[i];
  vec3 r = p.xyz;
#ifdef ADVECTION_ONLY
  TEND_OUT(i) = vec4(-div * scale, 0.0, 0.0, 0.0);
#else
  float zeta = circulation * scale;
  float fc = dot(r, coriolis_axis);
  vec3 du = -(zeta + fc) * cross(r, s.yzw) - grad * scale;
  du -= dot(du, r) * r;
  TEND_OUT(i) = vec4(-div * scale, du);
#endif
}}
)";

}  // namespace

std::string tendency_kernel_source(int group) {
  return fmt::format(tendency_head, group) +
         "layout(std430, binding = 4) writeonly buffer Tend { vec4 tend[]; };\n" + tendency_body;
}

std::string tendency_declarations(int group) {
  return fmt::format(tendency_head, group);
}

std::string tendency_function(const std::string& name, const std::string& input) {
  std::string body = tendency_body;
  const std::string entry =
      "void main() {\n  if (gpgpu_index() >= gpgpu_count) return;\n  uint i = first + "
      "gpgpu_index();\n";
  body.replace(body.find(entry), entry.size(), "void " + name + "(uint i) {\n");
  for (auto at = body.find("state["); at != std::string::npos; at = body.find("state[", at + 1)) {
    body.replace(at, 5, input);
  }
  return body;
}

// Stage s of classical Runge-Kutta at cell i: the next stage's input (at s == 3 the step's
// result), acc moved on. One text for the update kernel and the one-dispatch step, which
// differ in where the step's starting state is (BASE).
constexpr const char* rk_stage_source = R"(
vec4 rk_stage(uint i, int s, float next_step, float acc_step) {
  vec4 t = corrected(i);
  if (s == 3) return acc[i] + acc_step * t;
  vec4 b = BASE;
  acc[i] = (s == 0 ? b : acc[i]) + acc_step * t;
  return b + next_step * t;
}
)";

std::string rk_stage_function(const std::string& base) {
  std::string body = rk_stage_source;
  body.replace(body.find("BASE"), 4, base);
  return body;
}

std::string corrected_function() {
  return corrected_source;
}

std::string tendency_lanes_source(int group, bool fused) {
  return fmt::format(tendency_head, group) + lanes_head +
         (fused ? std::string(corrected_source) + fused_input : plain_input) +
         fmt::format(lanes_body, group);
}

std::string update_kernel_source(int group) {
  return fmt::format(R"(
#pragma optionNV(unroll all)
layout(local_size_x = {0}) in;
layout(std430, binding = 0) readonly buffer Tend {{ vec4 tend[]; }};
layout(std430, binding = 1) readonly buffer Neighbour {{ int neighbour[]; }};
layout(std430, binding = 2) readonly buffer Correction {{ float correction[]; }};
layout(std430, binding = 3) readonly buffer Base {{ vec4 base[]; }};
layout(std430, binding = 4) buffer Acc {{ vec4 acc[]; }};
layout(std430, binding = 5) writeonly buffer Next {{ vec4 next[]; }};
uniform int stage;         // 0..3 of classical Runge-Kutta
uniform float next_step;   // dt times the weight of this stage's tendency in the next stage
uniform float acc_step;    // dt times its weight in the step's result
uniform uint stride;       // cells per row of the slot-major tables
uniform uint first;        // the first cell of this dispatch (local index)
uniform uint tend_in;      // where this stage's tendencies start in tend
{1}{2}
void main() {{
  if (gpgpu_index() >= gpgpu_count) return;
  uint i = first + gpgpu_index();
  next[i] = rk_stage(i, stage, next_step, acc_step);
}}
)",
                     group, corrected_source, rk_stage_function("base[i]"));
}

std::string laplacian_kernel_source(int group) {
  return fmt::format(R"(
layout(local_size_x = {0}) in;
layout(std430, binding = 0) readonly buffer State {{ vec4 state[]; }};
layout(std430, binding = 1) readonly buffer Neighbour {{ int neighbour[]; }};
layout(std430, binding = 2) readonly buffer Laplace {{ float laplace[]; }};
layout(std430, binding = 3) writeonly buffer Lap {{ vec4 lap[]; }};
uniform uint stride;  // cells per row of the slot-major tables
uniform uint first;   // the first cell of this dispatch (local index)

void main() {{
  if (gpgpu_index() >= gpgpu_count) return;
  uint i = first + gpgpu_index();
  uint n = stride;
  vec4 s = state[i];
  vec4 sum = vec4(0.0);
  for (int k = 0; k < 6; ++k) {{
    uint at = uint(k) * n + i;
    sum += laplace[at] * (state[neighbour[at]] - s);
  }}
  lap[i] = sum;
}}
)",
                     group);
}

std::string diffusion_kernel_source(int group) {
  return fmt::format(R"(
layout(local_size_x = {0}) in;
layout(std430, binding = 0) readonly buffer State {{ vec4 state[]; }};
layout(std430, binding = 1) readonly buffer Neighbour {{ int neighbour[]; }};
layout(std430, binding = 2) readonly buffer Laplace {{ float laplace[]; }};
layout(std430, binding = 3) readonly buffer Lap {{ vec4 lap[]; }};
layout(std430, binding = 4) readonly buffer Position {{ vec4 position[]; }};
layout(std430, binding = 5) writeonly buffer Next {{ vec4 next[]; }};
uniform float factor;  // dt nu / a^4
uniform uint stride;   // cells per row of the slot-major tables
uniform uint first;    // the first cell of this dispatch (local index)

void main() {{
  if (gpgpu_index() >= gpgpu_count) return;
  uint i = first + gpgpu_index();
  uint n = stride;
  vec4 l = lap[i];
  vec4 sum = vec4(0.0);
  for (int k = 0; k < 6; ++k) {{
    uint at = uint(k) * n + i;
    sum += laplace[at] * (lap[neighbour[at]] - l);
  }}
  vec4 s = state[i] - factor * sum;
  vec3 r = position[i].xyz;
  s.yzw -= dot(s.yzw, r) * r;
  next[i] = s;
}}
)",
                     group);
}

std::string check_kernel_source(int group) {
  return fmt::format(R"(
layout(local_size_x = {0}) in;
layout(std430, binding = 0) readonly buffer State {{ vec4 state[]; }};
layout(std430, binding = 1) writeonly buffer Flags {{ vec4 flags[]; }};
uniform float mean_depth;  // m: the state holds h - mean_depth
uniform float lowest;      // the physical range of the depth (m), both ends excluded
uniform float highest;

// Infinity or NaN, by the exponent bits: compilers that assume finite math may fold isnan().
bool broken(float x) {{ return (floatBitsToUint(x) & 0x7f800000u) == 0x7f800000u; }}

void main() {{
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  vec4 s = state[i];
  bool bad_h = broken(s.x);
  bool bad_u = broken(s.y) || broken(s.z) || broken(s.w);
  float h = mean_depth + s.x;
  bool out_of_range = !bad_h && !(h > lowest && h < highest);
  flags[i] = vec4(bad_h ? 1.0 : 0.0, bad_u ? 1.0 : 0.0, out_of_range ? 1.0 : 0.0, 0.0);
}}
)",
                     group);
}

}  // namespace gpgpu::earth::detail
