// gpgpu::histogram / histogram_int: validate, clear the counts (unless accumulating), then
// one pass that counts into per-work-group (GPU) or per-invocation (CPU) copies of the bins
// in shared memory and adds them to the output with atomics.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "device_fit.hpp"
#include "glsl_ops.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "histogram_glsl.hpp"
#include "primitive_checks.hpp"
#include "primitive_plans.hpp"
#include "primitive_registry.hpp"
#include "primitive_tuning.hpp"
#include "reduce_plan.hpp"
#include "subgroup_glsl.hpp"

namespace gpgpu {

namespace {

using primitives::HistogramMode;
using primitives::HistogramShape;

// `texels`: the input Buffer's elements where known (primitives::reduce_tuning).
HistogramShape shape_for(const DeviceInfo& info, const PrimitiveTuning& t, std::uint32_t bins,
                         std::size_t texels = 0) {
  const primitives::DeviceFit fit = primitives::device_fit(info);
  const auto shared = fit.shared_bytes;
  const std::int64_t slots = std::int64_t{bins} + 3;
  HistogramShape s;
  s.bins = static_cast<int>(bins);
  s.precise = info.gl_major > 3 || info.gl_minor >= 2;
  s.loads = t.texel_loads == 1 && primitives::texel_loads_possible(fit, texels)
                ? primitives::Loads::Texels
                : primitives::Loads::Storage;
  if (t.texel_loads == 1) {  // CPU-style kernels (llvmpipe's default)
    s.mode = HistogramMode::Private;
    s.local = primitives::fit_local(8, fit);
    if (primitives::histogram_shared_bytes(s) > shared) s.mode = HistogramMode::Global;
  } else {
    s.mode = HistogramMode::SharedCopies;
    s.local = primitives::fit_local(256, fit);
    // The subgroup path's plans sweep the input with the groups the device runs at once, as
    // the reduction does (the contiguous chunks of the shared-memory path lost a quarter of
    // the bandwidth at 2^28 on the H100).
    s.strided = primitives::subgroups_for(info, t.subgroups).on;
    s.copies = 8;  // one per 32 invocations: fewer collisions on popular bins
    while (s.copies > 1 && s.copies * slots * 4 > std::min<std::int64_t>(shared, 32768))
      s.copies /= 2;
    while (s.copies > 1 && primitives::histogram_shared_bytes(s) > shared) s.copies /= 2;
    if (primitives::histogram_shared_bytes(s) > shared) s.mode = HistogramMode::Global;
  }
  // The input's blocks (none for texels), counts, acc and done_count at bindings 0-4.
  s.merged_counter =
      s.mode != HistogramMode::Global &&
      !primitives::fits_storage(fit, s.loads == primitives::Loads::Texels ? 3 : 5, 5);
  return s;
}

primitives::KernelSpec histogram_kernel(ElementType type, const HistogramShape& s) {
  return {
      fmt::format("histogram {} {} {} {} {} {} {}{}{}", to_string(type), static_cast<int>(s.mode),
                  s.local, s.copies, primitives::to_string(s.loads), s.bins, s.strided,
                  s.merged_counter ? " merged" : "", s.precise ? "" : " es31"),
      [=] { return primitives::histogram_source(type, s); }};
}

void clear_counts(const Context& ctx, Buffer& counts, std::size_t offset, std::size_t n) {
  auto& reg = primitives::registry(ctx);
  ComputeKernel& k = reg.kernel(ctx, primitives::clear_kernel(ctx.info()));
  k.run({{"counts", counts},
         {"out_offset", static_cast<std::uint32_t>(offset)},
         {"n", static_cast<std::uint32_t>(n)}},
        n);
}

struct HistogramCall {
  const Buffer* in;
  Buffer* counts;
  std::uint32_t bins;
  primitives::ScalarRange range;
  const HistogramOptions* options;
  Args bin_args;  // lo/hi/scale or lo_bits
};

// Trips per group: enough groups for every compute unit (the device's resident groups), 4 to
// 64 trips each (64, the earlier fixed plan, measured best at 2^28 on the H100: 0.81x CUB
// against 0.71x for one wave of resident groups); CPU devices (Private) give each
// invocation a long run.
int trips_for(const Context& ctx, const HistogramShape& s, std::size_t scalars) {
  if (s.mode == HistogramMode::Private) return 4096;
  const std::size_t vec4s = scalars / 4 + 1;
  const std::size_t resident = primitives::resident_groups(ctx, s.local);
  const std::size_t per_group = (vec4s + resident - 1) / resident;
  return static_cast<int>(std::clamp<std::size_t>((per_group + s.local - 1) / s.local, 4, 64));
}

void run_histogram(const Context& ctx, const HistogramCall& c, const char* fn) {
  const HistogramShape s =
      shape_for(ctx.info(), primitives::effective_tuning(ctx), c.bins, c.in->size());
  const bool one_dispatch = s.mode != HistogramMode::Global && c.range.count > 0;
  if (!c.options->accumulate && !one_dispatch) {
    clear_counts(ctx, *c.counts, c.options->out_offset, c.bins + 3);
  }
  if (c.range.count == 0) return;
  primitives::ReduceTuning plan_tuning;
  plan_tuning.local = s.local;
  plan_tuning.unroll = 1;
  plan_tuning.max_trips = trips_for(ctx, s, c.range.count);
  const auto max_groups = static_cast<std::size_t>(ctx.info().max_compute_work_group_count[0]);
  primitives::Vec4Plan p =
      primitives::plan_vec4(c.range.first, c.range.count, plan_tuning, max_groups);
  std::size_t groups = p.groups;
  if (s.mode == HistogramMode::Private && p.body_count > 0) {
    // A run of vec4s per invocation: the plan's group chunk split among its invocations.
    const auto local = static_cast<std::size_t>(s.local);
    p.chunk = static_cast<std::uint32_t>((p.chunk + local - 1) / local);
    groups = (p.body_count + p.chunk * local - 1) / (p.chunk * local);
  }
  if (s.strided && p.body_count > 0) {
    const std::size_t per_trip = static_cast<std::size_t>(s.local);
    groups = std::clamp<std::size_t>((p.body_count + per_trip - 1) / per_trip, 1,
                                     primitives::resident_groups(ctx, s.local));
    p.trips =
        static_cast<std::uint32_t>((p.body_count + groups * per_trip - 1) / (groups * per_trip));
  }
  groups = std::max<std::size_t>(groups, 1);
  auto& reg = primitives::registry(ctx);
  ComputeKernel& k = reg.kernel(ctx, histogram_kernel(c.in->element_type(), s));
  Args args = primitives::input_args(*c.in);
  args.insert(args.end(), c.bin_args.begin(), c.bin_args.end());
  const std::array<std::uint32_t, 4> edges = {p.head_begin, p.head_end, p.tail_begin, p.tail_end};
  args.insert(args.end(), {{"counts", *c.counts},
                           {"bins", c.bins},
                           {"body_begin", p.body_begin},
                           {"body_count", p.body_count},
                           {"chunk", p.chunk},
                           {"trips", p.trips},
                           {"edges", edges},
                           {"out_offset", static_cast<std::uint32_t>(c.options->out_offset)}});
  if (one_dispatch) {
    bool fresh = false;
    if (s.merged_counter) {
      // The counter's 4 words (zeros) ahead of the totals; a block of two members binds by
      // its name.
      args.emplace_back("Acc", reg.zeroed_scratch(ctx, "histogram.counter_acc", ElementType::Uint32,
                                                  std::size_t{c.bins} + 7, fresh));
    } else {
      Buffer& acc = reg.zeroed_scratch(ctx, "histogram.acc", ElementType::Uint32,
                                       std::size_t{c.bins} + 3, fresh);
      Buffer& done = reg.zeroed_scratch(ctx, "histogram.done", ElementType::Uint32, 1, fresh);
      args.insert(args.end(), {{"acc", acc}, {"done_count", done}});
    }
    args.emplace_back("accumulate", static_cast<std::int32_t>(c.options->accumulate));
  }
  (void)fn;
  reg.run(k, args, {groups, 1, 1});
}

HistogramCall validate(const Context& ctx, const Buffer& in, Buffer& counts, std::uint32_t bins,
                       const HistogramOptions& o, const char* fn) {
  primitives::check_buffer(ctx, in, fn, "in");
  primitives::check_buffer(ctx, counts, fn, "counts");
  primitives::check_type(counts, ElementType::Uint32, fn, "counts");
  if (bins == 0 || bins > (1u << 24)) {
    throw ArgumentError(fmt::format("gpgpu::{}: bins = {}; expected 1..2^24", fn, bins));
  }
  primitives::check_room(counts, o.out_offset, std::size_t{bins} + 3, fn, "counts");
  const auto r = primitives::resolve_range(in, o.range, 1, fn, "in");
  primitives::check_index_range(r.first + r.count, fn, "in");
  return {&in, &counts, bins, r, &o, {}};
}

HistogramCounts to_host(const std::vector<std::uint32_t>& raw, std::uint32_t bins) {
  HistogramCounts h;
  h.bins.assign(raw.begin(), raw.begin() + bins);
  h.below = raw[bins];
  h.above = raw[bins + 1];
  h.nan = raw[bins + 2];
  return h;
}

template <class T, class Run>
HistogramCounts host_histogram(const Context& ctx, std::span<const T> in, std::uint32_t bins,
                               Run run) {
  const Buffer b = in.empty() ? Buffer(ctx, element_type_of<T>(), 1) : Buffer::from(ctx, in);
  Buffer counts(ctx, ElementType::Uint32, std::size_t{bins} + 3);
  HistogramOptions o;
  o.range = {0, in.size()};
  run(b, counts, o);
  return to_host(counts.to_vector<std::uint32_t>(), bins);
}

}  // namespace

void histogram(const Context& ctx, const Buffer& in, Buffer& counts, std::uint32_t bins, float lo,
               float hi, const HistogramOptions& options) {
  const char* fn = "histogram";
  HistogramCall c = validate(ctx, in, counts, bins, options, fn);
  primitives::check_type(in, ElementType::Float32, fn, "in");
  if (!(std::isfinite(lo) && std::isfinite(hi) && lo < hi)) {
    throw ArgumentError(
        fmt::format("gpgpu::histogram: the range [{}, {}] must be finite with lo < hi", lo, hi));
  }
  const float scale = static_cast<float>(bins) / (hi - lo);
  if (!std::isfinite(scale) || scale <= 0.0f) {
    throw ArgumentError(fmt::format(
        "gpgpu::histogram: {} bins over [{}, {}] give no finite float32 scale", bins, lo, hi));
  }
  c.bin_args = {{"lo", lo}, {"hi", hi}, {"scale", scale}};
  run_histogram(ctx, c, fn);
}

void histogram_int(const Context& ctx, const Buffer& in, Buffer& counts, std::uint32_t bins,
                   std::int64_t lo, const HistogramOptions& options) {
  const char* fn = "histogram_int";
  HistogramCall c = validate(ctx, in, counts, bins, options, fn);
  const bool is_int = in.element_type() == ElementType::Int32;
  if (in.element_type() == ElementType::Float32) {
    throw TypeMismatchError(
        "gpgpu::histogram_int: 'in' holds float32; use gpgpu::histogram for floats");
  }
  const std::int64_t min = is_int ? std::numeric_limits<std::int32_t>::min() : 0;
  const std::int64_t max = is_int ? std::numeric_limits<std::int32_t>::max() : 0xFFFFFFFFll;
  if (lo < min || lo > max) {
    throw ArgumentError(fmt::format("gpgpu::histogram_int: lo = {} is outside the {} range", lo,
                                    to_string(in.element_type())));
  }
  c.bin_args = {{"lo_bits", static_cast<std::uint32_t>(lo)}};
  run_histogram(ctx, c, fn);
}

namespace primitives {
std::vector<KernelSpec> histogram_kernels(const DeviceInfo& info, const PrimitiveTuning& t,
                                          ElementType type, std::uint32_t bins) {
  return {clear_kernel(info), histogram_kernel(type, shape_for(info, t, bins))};
}
}  // namespace primitives

HistogramCounts histogram(const Context& ctx, std::span<const float> in, std::uint32_t bins,
                          float lo, float hi) {
  return host_histogram(ctx, in, bins,
                        [&](const Buffer& b, Buffer& counts, const HistogramOptions& o) {
                          histogram(ctx, b, counts, bins, lo, hi, o);
                        });
}

HistogramCounts histogram_int(const Context& ctx, std::span<const std::int32_t> in,
                              std::uint32_t bins, std::int64_t lo) {
  return host_histogram(ctx, in, bins,
                        [&](const Buffer& b, Buffer& counts, const HistogramOptions& o) {
                          histogram_int(ctx, b, counts, bins, lo, o);
                        });
}

HistogramCounts histogram_int(const Context& ctx, std::span<const std::uint32_t> in,
                              std::uint32_t bins, std::int64_t lo) {
  return host_histogram(ctx, in, bins,
                        [&](const Buffer& b, Buffer& counts, const HistogramOptions& o) {
                          histogram_int(ctx, b, counts, bins, lo, o);
                        });
}

}  // namespace gpgpu
