// gpgpu::reduce: validate, plan (reduce_plan), launch one or two passes, read back.
#include <fmt/format.h>

#include <algorithm>

#include "glsl_ops.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitive_checks.hpp"
#include "primitive_plans.hpp"
#include "primitive_registry.hpp"
#include "reduce_glsl.hpp"
#include "reduce_plan.hpp"
#include "subgroup_glsl.hpp"

namespace gpgpu {

namespace {

using primitives::OrderedPlan;
using primitives::ReduceTuning;
using primitives::ScalarRange;
using primitives::Vec4Plan;

std::size_t max_groups(const Context& ctx) {
  return static_cast<std::size_t>(ctx.info().max_compute_work_group_count[0]);
}

ComputeKernel& ordered_kernel(const Context& ctx, ElementType type, int components,
                              const Operator& op, const ReduceTuning& t) {
  return primitives::registry(ctx).kernel(
      ctx, primitives::reduce_ordered_kernel(t, type, components, op));
}

// The in-order kernel over `count` elements of `in` from scalar `first`; its result(s)
// (one per work group) go to out[out_offset...].
void run_ordered(const Context& ctx, const Buffer& in, std::size_t first, std::size_t count,
                 int components, const Operator& op, const Buffer& out, std::size_t out_offset,
                 const OrderedPlan& plan, const ReduceTuning& t) {
  Args args = primitives::input_args(in);
  args.insert(args.end(), {{"out_values", out},
                           {"first_scalar", static_cast<std::uint32_t>(first)},
                           {"count", static_cast<std::uint32_t>(count)},
                           {"chunk", plan.chunk},
                           {"per_thread", plan.per_thread},
                           {"out_offset", static_cast<std::uint32_t>(out_offset)}});
  primitives::registry(ctx).run(ordered_kernel(ctx, in.element_type(), components, op, t), args,
                                {plan.groups, 1, 1});
}

// Several work-group results in scratch, then one in-order pass over them into `out`.
void finish_partials(const Context& ctx, const Buffer& partials, std::size_t groups, int components,
                     const Operator& op, Buffer& out, std::size_t out_offset,
                     const ReduceTuning& t) {
  OrderedPlan second;
  second.per_thread = primitives::second_pass_run(groups, t);
  second.chunk = second.per_thread * static_cast<std::uint32_t>(t.local);
  second.groups = 1;
  run_ordered(ctx, partials, 0, groups, components, op, out, out_offset, second, t);
}

// One dispatch (see reduce_vec4_source). The subgroup kernels stride over the groups the
// device runs at once; the shared-memory ones give each group a contiguous chunk.
void reduce_vec4(const Context& ctx, const Buffer& in, const ScalarRange& r, int components, Op op,
                 Buffer& out, std::size_t out_offset, const ReduceTuning& t) {
  const Vec4Plan p = t.sg.on ? primitives::plan_vec4_strided(
                                   r.first, r.count, t, primitives::resident_groups(ctx, t.local))
                             : primitives::plan_vec4(r.first, r.count, t, max_groups(ctx));
  auto& reg = primitives::registry(ctx);
  bool fresh = false;
  // Merged: the counter's 4 words (zeros) ahead of the partials in one Buffer.
  Buffer& partials = t.merged_counter
                         ? reg.zeroed_scratch(ctx, "reduce.counter_partials", in.element_type(),
                                              4 + 4 * p.groups, fresh)
                         : reg.scratch(ctx, "reduce.partials", in.element_type(), 4 * p.groups);
  const std::array<std::uint32_t, 4> edges = {p.head_begin, p.head_end, p.tail_begin, p.tail_end};
  Args args = primitives::input_args(in);
  if (t.merged_counter) {
    args.emplace_back("Partials", partials);  // a block of two members binds by its name
  } else {
    args.insert(
        args.end(),
        {{"partials", partials},
         {"done_count", reg.zeroed_scratch(ctx, "reduce.done", ElementType::Uint32, 1, fresh)}});
  }
  args.insert(args.end(), {{"out_values", out},
                           {"body_begin", p.body_begin},
                           {"body_count", p.body_count},
                           {"chunk", p.chunk},
                           {"trips", p.trips},
                           {"groups", p.groups},
                           {"edges", edges},
                           {"out_offset", static_cast<std::uint32_t>(out_offset)}});
  reg.run(reg.kernel(ctx, primitives::reduce_vec4_kernel(t, in.element_type(), components, op)),
          args, {p.groups, 1, 1});
}

void reduce_in_order(const Context& ctx, const Buffer& in, const ScalarRange& r, int components,
                     const Operator& op, Buffer& out, std::size_t out_offset,
                     const ReduceTuning& t) {
  const OrderedPlan p = primitives::plan_ordered(r.elements, t, max_groups(ctx));
  const auto c = static_cast<std::size_t>(components);
  if (p.groups == 1) {
    run_ordered(ctx, in, r.first, r.elements, components, op, out, out_offset, p, t);
    return;
  }
  Buffer& partials =
      primitives::registry(ctx).scratch(ctx, "reduce.partials", in.element_type(), p.groups * c);
  run_ordered(ctx, in, r.first, r.elements, components, op, partials, 0, p, t);
  finish_partials(ctx, partials, p.groups, components, op, out, out_offset, t);
}

template <class T>
void check_host_type(const Buffer& in, const char* function) {
  primitives::check_type(in, element_type_of<T>(), function, "in");
}

}  // namespace

void reduce(const Context& ctx, const Buffer& in, Buffer& out, const Operator& op,
            const ReduceOptions& options) {
  const char* fn = "reduce";
  primitives::check_buffer(ctx, in, fn, "in");
  primitives::check_buffer(ctx, out, fn, "out");
  primitives::check_components(options.components, fn);
  primitives::check_type(out, in.element_type(), fn, "out");
  const ScalarRange r = primitives::resolve_range(in, options.range, options.components, fn, "in");
  primitives::check_room(out, options.out_offset, static_cast<std::size_t>(options.components), fn,
                         "out");
  primitives::check_index_range(r.first + r.count, fn, "in");
  const ReduceTuning t = primitives::reduce_tuning(ctx, in.size());
  if (primitives::vec4_path(op, options.components) && r.count > 0) {
    reduce_vec4(ctx, in, r, options.components, op.builtin(), out, options.out_offset, t);
  } else {
    reduce_in_order(ctx, in, r, options.components, op, out, options.out_offset, t);
  }
}

template <class T>
T reduce(const Context& ctx, const Buffer& in, const Operator& op, Range range) {
  primitives::check_buffer(ctx, in, "reduce", "in");
  check_host_type<T>(in, "reduce");
  return reduce_vector<T>(ctx, in, 1, op, range)[0];
}

template <class T>
std::vector<T> reduce_vector(const Context& ctx, const Buffer& in, int components,
                             const Operator& op, Range range) {
  primitives::check_buffer(ctx, in, "reduce", "in");
  check_host_type<T>(in, "reduce");
  primitives::check_components(components, "reduce");
  Buffer& result = primitives::registry(ctx).scratch(ctx, "reduce.result", in.element_type(), 4);
  reduce(ctx, in, result, op, {components, range, 0});
  std::vector<T> values(static_cast<std::size_t>(components));
  result.download(std::span<T>(values));
  return values;
}

namespace {
template <class T>
T reduce_host(const Context& ctx, std::span<const T> in, const Operator& op) {
  // An empty span still needs a Buffer to bind; the empty range makes the result the identity.
  Buffer b = in.empty() ? Buffer(ctx, element_type_of<T>(), 1) : Buffer::from(ctx, in);
  return reduce<T>(ctx, b, op, Range{0, in.size()});
}
}  // namespace

float reduce(const Context& ctx, std::span<const float> in, const Operator& op) {
  return reduce_host(ctx, in, op);
}
std::int32_t reduce(const Context& ctx, std::span<const std::int32_t> in, const Operator& op) {
  return reduce_host(ctx, in, op);
}
std::uint32_t reduce(const Context& ctx, std::span<const std::uint32_t> in, const Operator& op) {
  return reduce_host(ctx, in, op);
}

int reduce_error_depth(const Context& ctx, std::size_t n, int components, bool builtin_op) {
  primitives::check_components(components, "reduce_error_depth");
  const ReduceTuning t = primitives::reduce_tuning(ctx, n * static_cast<std::size_t>(components));
  if (builtin_op && components != 3) {
    return primitives::vec4_depth(n * static_cast<std::size_t>(components), t, max_groups(ctx),
                                  t.sg.on ? primitives::resident_groups(ctx, t.local) : 0);
  }
  return primitives::ordered_depth(n, t, max_groups(ctx));
}

#define GPGPU_INSTANTIATE_REDUCE(T)                                                             \
  template T reduce<T>(const Context&, const Buffer&, const Operator&, Range);                  \
  template std::vector<T> reduce_vector<T>(const Context&, const Buffer&, int, const Operator&, \
                                           Range);
GPGPU_INSTANTIATE_REDUCE(float)
GPGPU_INSTANTIATE_REDUCE(std::int32_t)
GPGPU_INSTANTIATE_REDUCE(std::uint32_t)
#undef GPGPU_INSTANTIATE_REDUCE

}  // namespace gpgpu

namespace gpgpu::primitives {
std::vector<KernelSpec> reduce_kernels(const DeviceInfo& info, const PrimitiveTuning& t,
                                       ElementType type, int components, const Operator& op) {
  const ReduceTuning r = reduce_tuning(info, t);
  std::vector<KernelSpec> kernels = {reduce_ordered_kernel(r, type, components, op)};
  if (vec4_path(op, components)) {
    kernels.push_back(reduce_vec4_kernel(r, type, components, op.builtin()));
  }
  return kernels;
}
}  // namespace gpgpu::primitives
