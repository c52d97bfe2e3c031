#include "gpgpu/work_group.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/cache.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/profiler.hpp"

namespace gpgpu {

namespace {

constexpr int conventional_size = 256;

constexpr const char* saxpy_vec4 = R"(
layout(local_size_x = LOCAL) in;
layout(std430, binding = 0) readonly buffer X { vec4 x[]; };
layout(std430, binding = 1) buffer Y { vec4 y[]; };
uniform float alpha;
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) y[i] = alpha * x[i] + y[i];
})";

std::mutex cache_mutex;
std::map<std::string, WorkGroupChoice>& cache() {
  static std::map<std::string, WorkGroupChoice> choices;
  return choices;
}

int heuristic(const DeviceInfo& info) {
  const auto limit = std::min<std::int64_t>(info.max_compute_work_group_invocations,
                                            info.max_compute_work_group_size[0]);
  return static_cast<int>(
      std::min<std::int64_t>(conventional_size, std::max<std::int64_t>(limit, 1)));
}

// log2 distance to 256: 128 and 512 are equally far.
double distance_to_conventional(int size) {
  return std::abs(std::log2(static_cast<double>(size) / conventional_size));
}

}  // namespace

std::vector<int> work_group_size_candidates(const DeviceInfo& info) {
  const auto limit = std::min<std::int64_t>(
      {info.max_compute_work_group_invocations, info.max_compute_work_group_size[0], 1024});
  std::vector<int> sizes;
  for (int s = 32; s <= limit; s *= 2) sizes.push_back(s);
  if (sizes.empty()) sizes.push_back(static_cast<int>(std::max<std::int64_t>(limit, 1)));
  return sizes;
}

namespace {

// Measurements of earlier processes: the size, a newline, the reason (the "work-group" store).
cache::Store disk() {
  return cache::Store("work-group", 1, 1u << 20);
}

// The disk first (a file read: cheap beside a measurement, and what another process stored
// is as good as ours), then what this process measured (all there is with GPGPU_CACHE=off).
std::optional<WorkGroupChoice> choice_made_earlier(const std::string& key) {
  if (const auto bytes = disk().load(key)) {
    const std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    WorkGroupChoice stored;
    stored.size = std::atoi(text.c_str());
    const auto newline = text.find('\n');
    if (stored.size > 0 && newline != std::string::npos) {
      stored.reason = "measured earlier (disk cache): " + text.substr(newline + 1);
      return stored;
    }
  }
  std::lock_guard lock(cache_mutex);
  const auto it = cache().find(key);
  if (it == cache().end()) return std::nullopt;
  WorkGroupChoice cached = it->second;
  cached.measured = false;
  cached.reason = "measured earlier in this process: " + cached.reason;
  return cached;
}

void remember_choice(const std::string& key, const WorkGroupChoice& choice) {
  {
    std::lock_guard lock(cache_mutex);
    cache()[key] = choice;
  }
  const std::string text = std::to_string(choice.size) + "\n" + choice.reason;
  disk().store(key, std::as_bytes(std::span(text.data(), text.size())));
}

// Large enough to be bandwidth-bound, small enough for a storage block and a quick probe.
std::size_t probe_floats(const DeviceInfo& info, const WorkGroupOptions& options) {
  std::size_t floats = options.floats != 0
                           ? options.floats
                           : (info.is_software ? std::size_t{1} << 21 : std::size_t{1} << 24);
  floats = std::min<std::size_t>(floats,
                                 static_cast<std::size_t>(info.max_shader_storage_block_size) / 4);
  return std::max<std::size_t>(floats / 4 * 4, 4);
}

struct SizeTimings {
  std::vector<WorkGroupTiming> timings;
  const char* clock;  // what measured them
};

// The median time of a vec4 SAXPY at every candidate size, run round robin so that a burst of
// other load on the machine hits every size alike.
SizeTimings time_sizes(const Context& context, const WorkGroupOptions& options,
                       std::size_t floats) {
  std::vector<float> ones(floats, 1.0f);
  Buffer x = Buffer::from(context, ones);
  Buffer y = Buffer::from(context, ones);
  Profiler profiler(context);
  const Args args{{"x", x}, {"y", y}, {"alpha", 0.5f}};
  const auto sizes = work_group_size_candidates(context.info());
  std::vector<ComputeKernel> kernels;
  for (const int size : sizes) {
    kernels.emplace_back(context, saxpy_vec4, Defines{{"LOCAL", std::to_string(size)}},
                         fmt::format("work-group probe {}", size));
    for (int i = 0; i < options.warmup; ++i) kernels.back().run(args);
  }
  for (int r = 0; r < options.repeats; ++r) {
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      auto scope = profiler.scope(std::to_string(sizes[k]));
      kernels[k].run(args);
    }
  }
  const double bytes = 3.0 * 4.0 * static_cast<double>(floats);
  std::vector<WorkGroupTiming> timings;
  for (const int size : sizes) {
    const auto stats = profiler.stats(std::to_string(size));
    const double ms = stats.gpu_samples > 0 ? stats.gpu_median_ms : stats.wall_median_ms;
    timings.push_back({size, ms, ms > 0 ? bytes / (ms * 1e6) : 0});
  }
  return {timings, profiler.timing_source() == TimingSource::TimerQueries ? "GPU timer"
                                                                          : "fenced wall clock"};
}

}  // namespace

WorkGroupChoice choose_work_group_size(const Context& context, const WorkGroupOptions& options) {
  const auto& info = context.info();
  const std::string key = "work-group size\n" + cache::device_key(info);
  if (options.use_cache) {
    if (auto earlier = choice_made_earlier(key)) return *earlier;
  }
  WorkGroupChoice choice;
  if (!options.measure) {
    choice.size = heuristic(info);
    choice.reason =
        fmt::format("heuristic: {} invocations, a multiple of every common warp size", choice.size);
    return choice;
  }
  if (options.repeats < 1 || options.warmup < 0) {
    throw ArgumentError(
        fmt::format("choose_work_group_size: repeats {} must be >= 1, warmup {} >= 0",
                    options.repeats, options.warmup));
  }
  const std::size_t floats = probe_floats(info, options);
  const SizeTimings measured = time_sizes(context, options, floats);
  choice.timings = measured.timings;
  // The fastest, or a size within 5% of it that is nearer the conventional 256.
  const auto fastest =
      std::min_element(choice.timings.begin(), choice.timings.end(),
                       [](const auto& a, const auto& b) { return a.median_ms < b.median_ms; });
  const WorkGroupTiming* best = &*fastest;
  for (const auto& t : choice.timings) {
    if (t.median_ms <= fastest->median_ms * 1.05 &&
        distance_to_conventional(t.size) < distance_to_conventional(best->size)) {
      best = &t;
    }
  }
  choice.size = best->size;
  choice.measured = true;
  choice.reason = fmt::format(
      "vec4 SAXPY over {} floats, median of {} ({}): fastest {} at {:.1f} GB/s; {} is within 5% "
      "and nearest 256",
      floats, options.repeats, measured.clock, fastest->size, fastest->gbps, best->size);
  remember_choice(key, choice);
  return choice;
}

int preferred_work_group_size(const Context& context) {
  return choose_work_group_size(context).size;
}

}  // namespace gpgpu
