// Timeline: GPU timestamps of marks on the host's clock (gpgpu/timeline.hpp).
#include "gpgpu/timeline.hpp"

#include <chrono>

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gl/gl_fence.hpp"
#include "gpgpu/error.hpp"
#include "profile/timestamps.hpp"

namespace gpgpu {

namespace {

std::int64_t host_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The GPU's clock now (ns), read without waiting for queued work.
std::int64_t gpu_now_ns() {
  GLint64 t = 0;
  GL(glGetInteger64v(GL_TIMESTAMP_EXT, &t));
  return t;
}

}  // namespace

struct Timeline::Impl {
  struct Pending {
    std::string label;
    long long index;
    std::int64_t host_ns;
    GLuint query;  // 0: no GPU time
  };
  std::shared_ptr<detail::ContextState> state;
  TimelineOptions options;
  std::string description;
  bool gpu = false;
  std::int64_t start_ns = 0;   // host clock when made: the marks' zero
  std::int64_t offset_ns = 0;  // host - GPU clock, read together when made
  double drift_us = 0;
  std::size_t dropped = 0;
  std::vector<Pending> pending;
  std::vector<TimelineMark> resolved;

  // Host and GPU clocks read back to back; the offset between them.
  std::int64_t clock_offset() const { return host_now_ns() - gpu_now_ns(); }

  bool disjoint() const {
    GLint d = 0;
    GL(glGetIntegerv(GL_GPU_DISJOINT_EXT, &d));  // reading clears the flag
    return d != 0;
  }

  void resolve() {
    if (pending.empty()) return;
    detail::wait_for_gpu();
    const bool lost = gpu && disjoint();
    if (gpu) drift_us = static_cast<double>(clock_offset() - offset_ns) * 1e-3;
    for (Pending& p : pending) {
      TimelineMark m{p.label, p.index, static_cast<double>(p.host_ns - start_ns) * 1e-3, -1};
      if (p.query != 0) {
        GLuint64 t = 0;
        state->ext.get_query_object_ui64v(p.query, GL_QUERY_RESULT, &t);
        detail::check_gl("glGetQueryObjectui64vEXT");
        if (!lost) {
          const auto on_host = static_cast<std::int64_t>(t) + offset_ns;
          m.gpu_us = static_cast<double>(on_host - start_ns) * 1e-3;
        }
        GL(glDeleteQueries(1, &p.query));
      }
      resolved.push_back(std::move(m));
    }
    pending.clear();
  }
};

Timeline::Timeline(const Context& context, const TimelineOptions& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  if (options.capacity == 0) throw ArgumentError("Timeline: capacity must be at least 1");
  if (options.first > options.last) {
    throw ArgumentError(
        fmt::format("Timeline: first index {} is past last {}", options.first, options.last));
  }
  m.state = context.state();
  m.options = options;
  m.state->ensure_current();
  const char* unusable = detail::timestamps_unusable(*m.state);
  if (*unusable != '\0') {
    m.description = fmt::format("host times only: {}", unusable);
  } else if (m.state->info.is_software) {
    m.description = "host times only: a software device's timer queries do not see its work";
  } else {
    m.gpu = true;
    m.description = "GPU timestamps (glQueryCounterEXT) on the host's steady clock";
    m.disjoint();  // clear a stale flag: only events from here on count
    m.offset_ns = m.clock_offset();
  }
  m.start_ns = host_now_ns();
}

Timeline::~Timeline() {
  if (!impl_ || impl_->pending.empty()) return;
  try {
    impl_->state->ensure_current();
    for (auto& p : impl_->pending) {
      if (p.query != 0) glDeleteQueries(1, &p.query);
    }
  } catch (...) {  // a lost context: its queries went with it
  }
}

void Timeline::mark(std::string_view label, long long index) {
  Impl& m = *impl_;
  if (index < m.options.first || index > m.options.last) return;
  if (m.pending.size() + m.resolved.size() >= m.options.capacity) {
    ++m.dropped;
    return;
  }
  m.state->ensure_current();
  GLuint query = 0;
  if (m.gpu) {
    GL(glGenQueries(1, &query));
    m.state->ext.query_counter(query, GL_TIMESTAMP_EXT);
    detail::check_gl("glQueryCounterEXT(GL_TIMESTAMP_EXT)");
  }
  m.pending.push_back({std::string(label), index, host_now_ns(), query});
}

std::vector<TimelineMark> Timeline::marks() {
  impl_->state->ensure_current();
  impl_->resolve();
  return impl_->resolved;
}

std::string Timeline::csv() {
  std::string out = "label,index,host_us,gpu_us\n";
  for (const TimelineMark& m : marks()) {
    out += fmt::format("{},{},{:.3f},{:.3f}\n", m.label, m.index, m.host_us, m.gpu_us);
  }
  return out;
}

bool Timeline::has_gpu_times() const noexcept {
  return impl_->gpu;
}
const std::string& Timeline::description() const noexcept {
  return impl_->description;
}
std::size_t Timeline::dropped() const noexcept {
  return impl_->dropped;
}
double Timeline::clock_drift_us() const noexcept {
  return impl_->drift_us;
}

}  // namespace gpgpu
