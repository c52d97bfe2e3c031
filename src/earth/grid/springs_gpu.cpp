// Spring dynamics as a compute kernel in float32 (see springs_gpu.hpp).
#include "earth/grid/springs_gpu.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "earth/grid/parallel.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth::detail {

namespace {

constexpr int group_size = 128;
constexpr int stall_checks = 4;  // checks without a 10% lower force: the float32 floor
// The force (over the limit) below which the points are taken as the new start positions.
constexpr double rebase_below = 64;

// One sweep for point i: the force from the displacements `before`, the heavy-ball update,
// and the displacement that puts start + displacement back on the unit sphere.
constexpr const char* kernel_source = R"(
layout(local_size_x = {group}) in;
layout(std430, binding = 0) readonly buffer BaseHi {{ vec4 base_hi[]; }};
layout(std430, binding = 1) readonly buffer BaseLo {{ vec4 base_lo[]; }};
layout(std430, binding = 2) readonly buffer Before {{ vec4 before[]; }};
layout(std430, binding = 3) writeonly buffer After {{ vec4 after[]; }};
layout(std430, binding = 4) buffer Velocity {{ vec4 velocity[]; }};
layout(std430, binding = 5) readonly buffer Ring {{ int ring[]; }};
layout(std430, binding = 6) buffer Largest {{ uint largest[]; }};
uniform float natural_chord;
uniform int measure;  // 1: also reduce the largest force and move into largest[0], [1]
shared vec2 worst[{group}];
// A spring must be summed in the order written (differences first): `precise` forbids a
// compiler to reassociate it (GLSL ES 3.2; the 3.1 compilers seen keep the order anyway).
#if __VERSION__ >= 320
#define IN_ORDER precise
#else
#define IN_ORDER
#endif

void main() {{
  uint i = gpgpu_index();
  uint n = gpgpu_count;
  vec2 m = vec2(0.0);  // (force, move) of this point
  if (i < n) {{
    vec3 hi = base_hi[i].xyz, lo = base_lo[i].xyz, d0 = before[i].xyz;
    vec3 d1 = d0;
    if (i >= {fixed}u) {{
      vec3 p = hi + (lo + d0);
      vec3 f = vec3(0.0);
      for (int k = 0; k < 6; ++k) {{
        int j = ring[uint(k) * n + i];
        if (j < 0) continue;
        // The spring, formed from differences of nearby values only.
        IN_ORDER vec3 d = (base_hi[j].xyz - hi) + ((base_lo[j].xyz - lo) + (before[j].xyz - d0));
        vec3 t = d - p * dot(d, p);
        f += t * ((length(d) - natural_chord) / length(t));
      }}
      vec3 v = {momentum} * velocity[i].xyz + {step} * f;
      v -= p * dot(v, p);
      d1 = d0 + v;
      // start + d1 has squared length 1 + e; scaling it by 1/sqrt(1 + e) moves the
      // displacement by (start + d1) (1/sqrt(1 + e) - 1), formed without cancellation.
      float e = 2.0 * dot(hi, d1) + dot(d1, d1);
      float r = sqrt(1.0 + e);
      d1 += (hi + d1) * (-e / (r * (1.0 + r)));
      velocity[i] = vec4(v, 0.0);
      m = vec2(length(f), length(d1 - d0));
    }}
    after[i] = vec4(d1, 0.0);
  }}
  if (measure != 0) {{
    uint l = gl_LocalInvocationID.x;
    worst[l] = m;
    for (uint half_size = {group}u / 2u; half_size > 0u; half_size /= 2u) {{
      barrier();
      if (l < half_size) worst[l] = max(worst[l], worst[l + half_size]);
    }}
    if (l == 0u) {{
      // Non-negative floats order as their bit patterns do.
      atomicMax(largest[0], floatBitsToUint(worst[0].x));
      atomicMax(largest[1], floatBitsToUint(worst[0].y));
    }}
  }}
}}
)";

std::string source() {
  return fmt::format(kernel_source, fmt::arg("group", group_size), fmt::arg("fixed", fixed_points),
                     fmt::arg("step", spring_step), fmt::arg("momentum", spring_momentum));
}

struct SpringKernel {
  explicit SpringKernel(const Context& ctx) : kernel(ctx, source(), {}, "earth spring sweep") {}
  ComputeKernel kernel;
};

// c as hi + lo, the float32 nearest c and the float32 nearest the rest. Not inlined: GCC
// 12.2 at -O3 vectorised the inlined form (its SLP vectoriser) into a lo of exactly 0 for
// every c (observed; -fno-tree-slp-vectorize gave the right lo).
struct Split {
  float hi, lo;
};
[[gnu::noinline]] Split split(double c) {
  const float hi = static_cast<float>(c);
  return {hi, static_cast<float>(c - static_cast<double>(hi))};
}

void check_size(const Context& ctx, std::size_t bytes, const char* what) {
  const auto limit = ctx.info().max_shader_storage_block_size;
  if (limit > 0 && bytes > static_cast<std::uint64_t>(limit)) {
    throw LimitError(fmt::format(
        "earth grid: the GPU spring sweep needs a {} table of {} bytes; this device's storage "
        "blocks hold at most {} bytes (use the CPU: GridDevice::Cpu, --grid-device cpu)",
        what, bytes, limit));
  }
}

}  // namespace

GpuSprings::GpuSprings(const Context& context)
    : context_(&context),
      kernel_(&context
                   .attachment<SpringKernel>(
                       "earth.springs", [&] { return std::make_shared<SpringKernel>(context); })
                   .kernel) {}

void GpuSprings::load(const SpringProblem& problem, const SpringState& state) {
  const Context& ctx = *context_;
  problem_ = &problem;
  n_ = state.points.size();
  check_size(ctx, 16 * n_, "position");
  check_size(ctx, 24 * n_, "neighbour");
  std::vector<std::int32_t> ring(6 * n_);
  parallel_for(n_, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      for (std::size_t k = 0; k < 6; ++k) ring[k * n_ + i] = problem.rings->neighbours[i][k];
    }
  });
  ring_ = Buffer::from(ctx, ring);
  largest_ = Buffer(ctx, ElementType::Uint32, 2);
  displacement_[1] = Buffer(ctx, ElementType::Float32, 4 * n_);
  start_from(state);
  rebased_ = false;
}

void GpuSprings::start_from(const SpringState& state) {
  const Context& ctx = *context_;
  start_ = state.points;
  std::vector<float> hi(4 * n_, 0.0f), lo(4 * n_, 0.0f), zero(4 * n_, 0.0f), v(4 * n_, 0.0f);
  parallel_for(n_, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const Vec3 &p = start_[i], &w = state.velocity[i];
      const double c[3] = {p.x, p.y, p.z}, u[3] = {w.x, w.y, w.z};
      for (int a = 0; a < 3; ++a) {
        const Split s = split(c[a]);
        hi[4 * i + a] = s.hi;
        lo[4 * i + a] = s.lo;
        v[4 * i + a] = static_cast<float>(u[a]);
      }
    }
  });
  base_hi_ = Buffer::from(ctx, hi);
  base_lo_ = Buffer::from(ctx, lo);
  displacement_[0] = Buffer::from(ctx, zero);
  velocity_ = Buffer::from(ctx, v);
  current_ = 0;
  stalled_checks_ = 0;
  best_force_ = std::numeric_limits<double>::infinity();
}

void GpuSprings::dispatch(bool measure) {
  kernel_->run({{"base_hi", base_hi_},
                {"base_lo", base_lo_},
                {"before", displacement_[current_]},
                {"after", displacement_[1 - current_]},
                {"velocity", velocity_},
                {"ring", ring_},
                {"largest", largest_},
                {"natural_chord", problem_->natural_chord},
                {"measure", std::int32_t{measure ? 1 : 0}}},
               n_);
  current_ = 1 - current_;
}

bool GpuSprings::sweeps(SpringState& state, int count, double slack) {
  constexpr int check_every = 16;
  const double limit = problem_->limit;
  for (int done = 0; done < count && !state.converged && state.sweeps < problem_->max_sweeps;) {
    const int block = std::min({check_every, count - done, problem_->max_sweeps - state.sweeps});
    for (int s = 0; s + 1 < block; ++s) dispatch(false);
    largest_.upload(std::vector<std::uint32_t>{0u, 0u});
    dispatch(true);
    done += block;
    state.sweeps += block;
    const auto largest = largest_.to_vector<std::uint32_t>();
    state.force = std::bit_cast<float>(largest[0]);
    state.moved = std::bit_cast<float>(largest[1]);
    if (!std::isfinite(state.force) || !std::isfinite(state.moved)) {
      throw Error(
          fmt::format("earth grid: the GPU spring sweep diverged (largest force {})", state.force));
    }
    state.converged = state.force < slack * limit && state.moved < limit;
    // Near the end, start again from where the points are: what is left to move is then
    // small, and so is its float32 rounding.
    if (!state.converged && !rebased_ && state.force < rebase_below * problem_->limit) {
      read(state);
      start_from(state);
      rebased_ = true;
    }
    // At the float32 floor the force stops falling: leave the rest to float64.
    if (state.force < 0.9 * best_force_) {
      best_force_ = state.force;
      stalled_checks_ = 0;
    } else if (++stalled_checks_ >= stall_checks) {
      return true;
    }
  }
  return false;
}

void GpuSprings::read(SpringState& state) const {
  const auto displacement = displacement_[current_].to_vector<float>();
  const auto velocity = velocity_.to_vector<float>();
  parallel_for(n_, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const Vec3 d{displacement[4 * i], displacement[4 * i + 1], displacement[4 * i + 2]};
      state.points[i] = i < fixed_points ? start_[i] : normalized(start_[i] + d);
      state.velocity[i] = {velocity[4 * i], velocity[4 * i + 1], velocity[4 * i + 2]};
    }
  });
}

}  // namespace gpgpu::earth::detail
