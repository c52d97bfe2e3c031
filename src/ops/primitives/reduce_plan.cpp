#include "reduce_plan.hpp"

#include <algorithm>
#include <bit>

namespace gpgpu::primitives {

namespace {
std::size_t ceil_div(std::size_t a, std::size_t b) {
  return (a + b - 1) / b;
}
int ceil_log2(std::size_t n) {
  return n <= 1 ? 0 : static_cast<int>(std::bit_width(n - 1));
}
}  // namespace

ReduceTuning reduce_tuning(const Context& ctx) {
  ReduceTuning t;
  if (ctx.info().is_software) {
    // llvmpipe: a work group runs on one CPU thread; fewer, longer groups cost fewer
    // coroutine switches at the barriers.
    t.local = 64;
    t.unroll = 4;
    t.max_trips = 256;
  }
  return t;
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
}  // namespace

int vec4_depth(std::size_t n, const ReduceTuning& t, std::size_t max_groups) {
  const Vec4Plan p = plan_vec4(0, n, t, max_groups);
  // Per invocation: a chain of `trips` combinations, each adding a tree of `unroll` loads
  // (or, in the last partial trip, up to `unroll` single loads); group 0 then adds the <= 6
  // head and tail scalars; the 4 lanes fold in 2 levels; the work group's tree has
  // log2(local) levels. With several groups, the in-order pass adds its run and its tree.
  int depth =
      static_cast<int>(p.trips) + t.unroll + 6 + 2 + ceil_log2(static_cast<std::size_t>(t.local));
  if (p.groups > 1) depth += second_pass_depth(p.groups, t);
  return depth;
}

int ordered_depth(std::size_t n, const ReduceTuning& t, std::size_t max_groups) {
  const OrderedPlan p = plan_ordered(n, t, max_groups);
  int depth = static_cast<int>(p.per_thread) + ceil_log2(static_cast<std::size_t>(t.local));
  if (p.groups > 1) depth += second_pass_depth(p.groups, t);
  return depth;
}

}  // namespace gpgpu::primitives
