#include "gpgpu/profiler.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gl/gl_fence.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "profile/json_text.hpp"
#include "profile/timestamps.hpp"

namespace gpgpu {

namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

std::string ms_cell(double ms) {
  return ms < 0 ? std::string("-") : fmt::format("{:.4f}", ms);
}

}  // namespace

Profiler::Profiler(const Context& context, const ProfilerOptions& options)
    : state_(context.state()) {
  state_->ensure_current();
  const char* unusable = detail::timestamps_unusable(*state_);
  if (!options.use_timer_queries) {
    description_ = "fenced wall clock only (timer queries turned off by ProfilerOptions)";
  } else if (*unusable != '\0') {
    description_ = fmt::format("fenced wall clock only: {}", unusable);
  } else {
    source_ = TimingSource::TimerQueries;
    description_ = "GPU timestamps (GL_EXT_disjoint_timer_query) and fenced wall clock";
  }
}

Profiler::~Profiler() {
  for (std::size_t i = 0; i < open_.size(); ++i) abandon_scope(i);
}

bool Profiler::poll_disjoint() {
  GLint disjoint = 0;
  GL(glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint));  // reading clears the flag
  if (disjoint != 0) ++disjoint_epoch_;
  return disjoint != 0;
}

Profiler::Scope Profiler::scope(std::string name) {
  state_->ensure_current();
  std::size_t slot = 0;
  while (slot < open_.size() && open_[slot].active) ++slot;
  if (slot == open_.size()) open_.emplace_back();
  OpenScope& s = open_[slot];
  s = OpenScope{};
  s.name = std::move(name);
  // Earlier work must not count: wait for it before the clock starts.
  detail::wait_for_gpu();
  if (source_ == TimingSource::TimerQueries) {
    poll_disjoint();
    s.disjoint_epoch = disjoint_epoch_;
    GLuint ids[2] = {0, 0};
    GL(glGenQueries(2, ids));
    s.start_query = ids[0];
    s.end_query = ids[1];
    state_->ext.query_counter(s.start_query, GL_TIMESTAMP_EXT);
    detail::check_gl("glQueryCounterEXT(GL_TIMESTAMP_EXT)");
  }
  s.start = std::chrono::steady_clock::now();
  s.active = true;
  return Scope(this, slot);
}

void Profiler::end_scope(std::size_t slot) {
  OpenScope& s = open_[slot];
  if (!s.active) return;
  try {
    state_->ensure_current();
    if (s.end_query != 0) {
      state_->ext.query_counter(s.end_query, GL_TIMESTAMP_EXT);
      detail::check_gl("glQueryCounterEXT(GL_TIMESTAMP_EXT)");
    }
    detail::wait_for_gpu();
    const auto end = std::chrono::steady_clock::now();
    double gpu_ns = -1;
    bool dropped = false;
    if (s.end_query != 0) {
      GLuint64 t0 = 0, t1 = 0;
      state_->ext.get_query_object_ui64v(s.start_query, GL_QUERY_RESULT, &t0);
      state_->ext.get_query_object_ui64v(s.end_query, GL_QUERY_RESULT, &t1);
      detail::check_gl("glGetQueryObjectui64vEXT");
      poll_disjoint();
      if (disjoint_epoch_ != s.disjoint_epoch || t1 < t0) {
        dropped = true;
      } else {
        gpu_ns = static_cast<double>(t1 - t0);
      }
    }
    Samples& samples = samples_for(s.name);
    ++samples.count;
    if (dropped) ++samples.disjoint;
    if (gpu_ns >= 0) samples.gpu_ns.push_back(gpu_ns);
    samples.wall_ns.push_back(std::chrono::duration<double, std::nano>(end - s.start).count());
  } catch (...) {
    abandon_scope(slot);
    throw;
  }
  abandon_scope(slot);
}

void Profiler::abandon_scope(std::size_t slot) noexcept {
  OpenScope& s = open_[slot];
  if (s.start_query != 0 && state_->try_make_current()) {
    const GLuint ids[2] = {s.start_query, s.end_query};
    glDeleteQueries(2, ids);
    glGetError();
  }
  s = OpenScope{};
}

Profiler::Samples& Profiler::samples_for(const std::string& name) {
  for (auto& s : samples_) {
    if (s.name == name) return s;
  }
  samples_.push_back(Samples{name, {}, {}, 0, 0});
  return samples_.back();
}

void Profiler::record(const std::string& name, double gpu_ns, double wall_ns) {
  Samples& s = samples_for(name);
  ++s.count;
  if (gpu_ns >= 0) s.gpu_ns.push_back(gpu_ns);
  if (wall_ns >= 0) s.wall_ns.push_back(wall_ns);
}

std::vector<ProfileStats> Profiler::stats() const {
  std::vector<ProfileStats> out;
  for (const auto& s : samples_) out.push_back(stats(s.name));
  return out;
}

ProfileStats Profiler::stats(const std::string& name) const {
  const auto it = std::find_if(samples_.begin(), samples_.end(),
                               [&](const Samples& s) { return s.name == name; });
  if (it == samples_.end()) {
    throw ArgumentError(fmt::format("Profiler: nothing was recorded under '{}'", name));
  }
  ProfileStats r;
  r.name = it->name;
  r.count = it->count;
  r.disjoint = it->disjoint;
  r.gpu_samples = it->gpu_ns.size();
  r.wall_samples = it->wall_ns.size();
  if (!it->gpu_ns.empty()) {
    r.gpu_total_ms = std::accumulate(it->gpu_ns.begin(), it->gpu_ns.end(), 0.0) / 1e6;
    r.gpu_median_ms = median_of(it->gpu_ns) / 1e6;
    r.gpu_min_ms = *std::min_element(it->gpu_ns.begin(), it->gpu_ns.end()) / 1e6;
    r.gpu_max_ms = *std::max_element(it->gpu_ns.begin(), it->gpu_ns.end()) / 1e6;
  }
  if (!it->wall_ns.empty()) {
    r.wall_total_ms = std::accumulate(it->wall_ns.begin(), it->wall_ns.end(), 0.0) / 1e6;
    r.wall_median_ms = median_of(it->wall_ns) / 1e6;
    r.wall_min_ms = *std::min_element(it->wall_ns.begin(), it->wall_ns.end()) / 1e6;
    r.wall_max_ms = *std::max_element(it->wall_ns.begin(), it->wall_ns.end()) / 1e6;
  }
  return r;
}

std::string Profiler::table() const {
  const auto all = stats();
  std::size_t width = 4;
  for (const auto& s : all) width = std::max(width, s.name.size());
  std::string out = fmt::format("profile on {}: {}\n", state_->info.renderer, description_);
  out +=
      fmt::format("{:<{}}  {:>6}  {:>12}  {:>12}  {:>12}  {:>12}  {:>12}\n", "name", width, "count",
                  "gpu total ms", "gpu med ms", "gpu min ms", "wall total ms", "wall med ms");
  for (const auto& s : all) {
    out += fmt::format("{:<{}}  {:>6}  {:>12}  {:>12}  {:>12}  {:>12}  {:>12}", s.name, width,
                       s.count, ms_cell(s.gpu_total_ms), ms_cell(s.gpu_median_ms),
                       ms_cell(s.gpu_min_ms), ms_cell(s.wall_total_ms), ms_cell(s.wall_median_ms));
    if (s.disjoint > 0) out += fmt::format("  ({} GPU samples dropped: disjoint)", s.disjoint);
    out += '\n';
  }
  return out;
}

std::string Profiler::json() const {
  auto times = [](std::size_t samples, double total, double median, double lo, double hi) {
    if (samples == 0) return std::string("null");
    return fmt::format(
        "{{\"samples\": {}, \"total\": {}, \"median\": {}, \"min\": {}, \"max\": {}}}", samples,
        detail::json_number(total), detail::json_number(median), detail::json_number(lo),
        detail::json_number(hi));
  };
  std::string out =
      fmt::format("{{\"device\": {}, \"timing\": {}, \"gpu_timer\": {}, \"entries\": [",
                  detail::json_string(state_->info.renderer), detail::json_string(description_),
                  source_ == TimingSource::TimerQueries ? "true" : "false");
  bool first = true;
  for (const auto& s : stats()) {
    out += first ? "\n  " : ",\n  ";
    first = false;
    out += fmt::format(
        "{{\"name\": {}, \"count\": {}, \"disjoint\": {}, \"gpu_ms\": {}, \"wall_ms\": {}}}",
        detail::json_string(s.name), s.count, s.disjoint,
        times(s.gpu_samples, s.gpu_total_ms, s.gpu_median_ms, s.gpu_min_ms, s.gpu_max_ms),
        times(s.wall_samples, s.wall_total_ms, s.wall_median_ms, s.wall_min_ms, s.wall_max_ms));
  }
  out += "\n]}\n";
  return out;
}

void Profiler::clear() {
  samples_.clear();
}

Profiler::Scope::Scope(Scope&& other) noexcept : profiler_(other.profiler_), slot_(other.slot_) {
  other.profiler_ = nullptr;
}

Profiler::Scope::~Scope() {
  if (profiler_ == nullptr) return;
  try {
    profiler_->end_scope(slot_);
  } catch (...) {
    // A destructor must not throw (it may run while an exception unwinds); the sample is
    // lost. Call stop() to see the error.
  }
}

void Profiler::Scope::stop() {
  if (profiler_ == nullptr) return;
  Profiler* p = profiler_;
  profiler_ = nullptr;
  p->end_scope(slot_);
}

}  // namespace gpgpu
