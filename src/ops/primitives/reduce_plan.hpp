// Internal: how a reduction of n scalars is split into work groups and passes. Shared by
// reduce (which launches it) and reduce_error_depth (which reports its summation depth).
#pragma once

#include <cstddef>
#include <cstdint>

#include "glsl_ops.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/primitives.hpp"
#include "primitive_registry.hpp"
#include "subgroup_glsl.hpp"

namespace gpgpu::primitives {

struct ReduceTuning {
  int local = 256;               // invocations per work group
  int unroll = 4;                // independent vec4 loads per trip
  int max_trips = 32;            // trips per invocation before another work group is added
  int ordered_run = 32;          // elements per invocation of the in-order kernel
  Loads loads = Loads::Storage;  // how inputs are read
  Subgroups sg;                  // on: the vec4 kernel combines with subgroups
  int subgroup_size = 0;         // sg.size where the subgroup kernels run, else 0
  // The vec4 kernel keeps its last-group counter in its partials' block: 4 storage blocks
  // (5 binding points) are too few for both apart.
  bool merged_counter = false;
};

// The tuning for a device (with its subgroup size where the subgroup kernels run) from the
// primitives' (filled-in) tuning, and for this Context; for an input Buffer of `texels`
// elements where it is known (texel loads only where a buffer texture holds them all).
ReduceTuning reduce_tuning(const DeviceInfo& info, const PrimitiveTuning& p,
                           std::size_t texels = 0);
ReduceTuning reduce_tuning(const Context& ctx, std::size_t texels = 0);

// The kernels of a reduction of `components`-scalar elements: the vec4 kernel for built-in
// operators on 1, 2 or 4 components (vec4_path), the in-order one for the others and for
// empty ranges (and its single-group pass over groups' results).
bool vec4_path(const Operator& op, int components);
KernelSpec reduce_vec4_kernel(const ReduceTuning& t, ElementType type, int components, Op op);
KernelSpec reduce_ordered_kernel(const ReduceTuning& t, ElementType type, int components,
                                 const Operator& op);

// Pass 1 of the vec4 kernel over scalars [first, first + count).
struct Vec4Plan {
  std::uint32_t head_begin = 0, head_end = 0, tail_begin = 0, tail_end = 0;  // scalars
  std::uint32_t body_begin = 0, body_count = 0;                              // vec4s
  std::uint32_t groups = 1, chunk = 0, trips = 0;
};
Vec4Plan plan_vec4(std::size_t first, std::size_t count, const ReduceTuning& t,
                   std::size_t max_groups);
// The subgroup path's plan: at most `resident` groups, each trip of which reads local * unroll
// vec4s, trip t of group g at (t * groups + g) * local * unroll; chunk is the stride
// between a group's trips (groups * local * unroll).
Vec4Plan plan_vec4_strided(std::size_t first, std::size_t count, const ReduceTuning& t,
                           std::size_t resident);
// Work groups of `local` invocations the device runs at once (2048 invocations per compute
// unit, as on NVIDIA's data-centre GPUs), or max_groups when the compute units are unknown.
std::size_t resident_groups(const Context& ctx, int local);

// The in-order kernel over `count` elements.
struct OrderedPlan {
  std::uint32_t groups = 1, chunk = 0, per_thread = 0;
};
OrderedPlan plan_ordered(std::size_t count, const ReduceTuning& t, std::size_t max_groups);

// Elements per invocation of the single-group pass over `groups` work-group results.
std::uint32_t second_pass_run(std::size_t groups, const ReduceTuning& t);

// Summation depth of the vec4 path for n scalars, and of the in-order path for n elements
// (see reduce_error_depth).
// resident > 0: the strided plan over at most that many groups.
int vec4_depth(std::size_t n, const ReduceTuning& t, std::size_t max_groups,
               std::size_t resident = 0);
int ordered_depth(std::size_t n, const ReduceTuning& t, std::size_t max_groups);

}  // namespace gpgpu::primitives
