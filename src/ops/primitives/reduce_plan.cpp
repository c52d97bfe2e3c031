#include "reduce_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "device_fit.hpp"
#include "primitive_tuning.hpp"
#include "reduce_glsl.hpp"
#include "subgroup_glsl.hpp"

namespace gpgpu::primitives {

namespace {
std::size_t ceil_div(std::size_t a, std::size_t b) {
  return (a + b - 1) / b;
}
int ceil_log2(std::size_t n) {
  return n <= 1 ? 0 : static_cast<int>(std::bit_width(n - 1));
}
}  // namespace

ReduceTuning reduce_tuning(const DeviceInfo& info, const PrimitiveTuning& p, std::size_t texels) {
  const DeviceFit fit = device_fit(info);
  ReduceTuning t;
  t.local = p.reduce_local;
  t.unroll = p.reduce_unroll;
  t.max_trips = p.reduce_max_trips;
  t.loads =
      p.texel_loads == 1 && texel_loads_possible(fit, texels) ? Loads::Texels : Loads::Storage;
  t.sg = subgroups_for(info, p.subgroups);
  t.subgroup_size = t.sg.on ? t.sg.size : 0;
  t.local = subgroup_local(t.local, t.sg);
  // The vec4 kernel's blocks: in4, in1 (unless texels), out, partials, done at bindings 0-4.
  t.merged_counter = !fits_storage(fit, t.loads == Loads::Texels ? 3 : 5, 5);
  return t;
}

ReduceTuning reduce_tuning(const Context& ctx, std::size_t texels) {
  return reduce_tuning(ctx.info(), effective_tuning(ctx), texels);
}

bool vec4_path(const Operator& op, int components) {
  return op.is_builtin() && components != 3;
}

KernelSpec reduce_vec4_kernel(const ReduceTuning& t, ElementType type, int components, Op op) {
  return {fmt::format("reduce_vec4 {} {} {} {} {} {} sg{}{}{}", to_string(type), components,
                      to_string(op), t.local, t.unroll, to_string(t.loads), t.sg.size,
                      t.sg.native ? "" : "e", t.merged_counter ? " merged" : ""),
          [=] { return reduce_vec4_source(type, components, op, t, t.sg, t.sg.on); }};
}

KernelSpec reduce_ordered_kernel(const ReduceTuning& t, ElementType type, int components,
                                 const Operator& op) {
  return {fmt::format("reduce_ordered {} {} {} {} {}", to_string(type), components, op_key(op),
                      t.local, to_string(t.loads)),
          [=] { return reduce_ordered_source(type, components, op, t.local, t.loads); }};
}

Vec4Plan plan_vec4(std::size_t first, std::size_t count, const ReduceTuning& t,
                   std::size_t max_groups) {
  Vec4Plan p;
  const std::size_t end = first + count;
  const std::size_t body_begin = ceil_div(first, 4), body_end = end / 4;
  if (body_end <= body_begin) {
    p.head_begin = static_cast<std::uint32_t>(first);
    p.head_end = static_cast<std::uint32_t>(end);
    p.body_begin = static_cast<std::uint32_t>(body_begin);
    return p;
  }
  p.head_begin = static_cast<std::uint32_t>(first);
  p.head_end = static_cast<std::uint32_t>(body_begin * 4);
  p.tail_begin = static_cast<std::uint32_t>(body_end * 4);
  p.tail_end = static_cast<std::uint32_t>(end);
  p.body_begin = static_cast<std::uint32_t>(body_begin);
  const std::size_t m = body_end - body_begin;
  p.body_count = static_cast<std::uint32_t>(m);
  const std::size_t per_trip =
      static_cast<std::size_t>(t.local) * static_cast<std::size_t>(t.unroll);
  std::size_t groups = std::clamp<std::size_t>(
      ceil_div(m, per_trip * static_cast<std::size_t>(t.max_trips)), 1, max_groups);
  const std::size_t trips = ceil_div(ceil_div(m, groups), per_trip);
  p.trips = static_cast<std::uint32_t>(trips);
  p.chunk = static_cast<std::uint32_t>(trips * per_trip);
  p.groups = static_cast<std::uint32_t>(ceil_div(m, trips * per_trip));
  return p;
}

Vec4Plan plan_vec4_strided(std::size_t first, std::size_t count, const ReduceTuning& t,
                           std::size_t resident) {
  Vec4Plan p = plan_vec4(first, count, t, 1);  // head, body and tail; one group for now
  if (p.body_count == 0) return p;
  const std::size_t m = p.body_count;
  const std::size_t per_trip =
      static_cast<std::size_t>(t.local) * static_cast<std::size_t>(t.unroll);
  const std::size_t groups = std::clamp<std::size_t>(ceil_div(m, per_trip), 1, resident);
  p.groups = static_cast<std::uint32_t>(groups);
  p.trips = static_cast<std::uint32_t>(ceil_div(m, groups * per_trip));
  p.chunk = static_cast<std::uint32_t>(groups * per_trip);
  return p;
}

std::size_t resident_groups(const Context& ctx, int local) {
  const auto max_groups = static_cast<std::size_t>(ctx.info().max_compute_work_group_count[0]);
  if (ctx.info().compute_units <= 0) return max_groups;
  const std::size_t per_unit = std::max(1, 2048 / local);
  return std::min(max_groups, static_cast<std::size_t>(ctx.info().compute_units) * per_unit);
}

OrderedPlan plan_ordered(std::size_t count, const ReduceTuning& t, std::size_t max_groups) {
  OrderedPlan p;
  const auto local = static_cast<std::size_t>(t.local);
  std::size_t per_thread = std::max<std::size_t>(
      {std::size_t{1},
       std::min<std::size_t>(ceil_div(count, local), static_cast<std::size_t>(t.ordered_run)),
       ceil_div(count, local * max_groups)});
  p.per_thread = static_cast<std::uint32_t>(per_thread);
  p.chunk = static_cast<std::uint32_t>(per_thread * local);
  p.groups =
      static_cast<std::uint32_t>(std::max<std::size_t>(1, ceil_div(count, per_thread * local)));
  return p;
}

std::uint32_t second_pass_run(std::size_t groups, const ReduceTuning& t) {
  return static_cast<std::uint32_t>(ceil_div(groups, static_cast<std::size_t>(t.local)));
}

namespace {
// The in-order pass over the work groups' results: a run per invocation, then a tree.
int second_pass_depth(std::size_t groups, const ReduceTuning& t) {
  return static_cast<int>(second_pass_run(groups, t)) +
         ceil_log2(static_cast<std::size_t>(t.local));
}
// The vec4 kernel's combination of a work group's values: a halving tree, or with subgroups
// a subgroup reduction (in an order the driver chooses: at most size - 1 combinations for a
// term), the subgroups' results in runs of the subgroup size, and one more reduction.
int group_depth(const ReduceTuning& t) {
  if (t.subgroup_size <= 0) return ceil_log2(static_cast<std::size_t>(t.local));
  const int count = t.local / t.subgroup_size;
  return 2 * (t.subgroup_size - 1) + (count + t.subgroup_size - 1) / t.subgroup_size;
}
}  // namespace

int vec4_depth(std::size_t n, const ReduceTuning& t, std::size_t max_groups, std::size_t resident) {
  const Vec4Plan p =
      resident > 0 ? plan_vec4_strided(0, n, t, resident) : plan_vec4(0, n, t, max_groups);
  // Per invocation: a chain of `trips` combinations, each adding a tree of `unroll` loads
  // (or, in the last partial trip, up to `unroll` single loads); group 0 then adds the <= 6
  // head and tail scalars; the 4 lanes fold in 2 levels; the work group's tree has
  // log2(local) levels. With several groups, the in-order pass adds its run and its tree.
  // With subgroups, the group's combination is group_depth instead of the tree.
  int depth = static_cast<int>(p.trips) + t.unroll + 6 + 2 + group_depth(t);
  if (p.groups > 1) depth += static_cast<int>(second_pass_run(p.groups, t)) + group_depth(t);
  return depth;
}

int ordered_depth(std::size_t n, const ReduceTuning& t, std::size_t max_groups) {
  const OrderedPlan p = plan_ordered(n, t, max_groups);
  int depth = static_cast<int>(p.per_thread) + ceil_log2(static_cast<std::size_t>(t.local));
  if (p.groups > 1) depth += second_pass_depth(p.groups, t);
  return depth;
}

}  // namespace gpgpu::primitives
