#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gl/device_info.hpp"
#include "gl/device_limits.hpp"
#include "gl/gl_fence.hpp"
#include "gl/groups_in_flight_probe.hpp"
#include "gl/inline_work_probe.hpp"
#include "gl/lockstep_probe.hpp"
#include "gl/loop_limit.hpp"
#include "gl/uniform_probe.hpp"
#include "gpgpu/error.hpp"
#include "shader/program.hpp"
#include "shader/program_batch.hpp"
#include "shader/program_binary_cache.hpp"
#include "transfer/transfer_engine.hpp"

// The platform-independent part of a Context: what it shares with the objects made from it,
// its run timeout and its methods. How the context itself is made, made current and
// destroyed is the platform's (gl/platform.hpp, src/platform/).

namespace gpgpu {

namespace detail {

ContextState::ContextState() = default;

ContextState::~ContextState() {
  release();
}

namespace {

// The context gpgpu made current on this thread last; released when the thread ends, so that
// the thread's end hands the Context over (EGL would otherwise keep it bound to a dead
// thread, and every other thread would get EGL_BAD_ACCESS).
class ThreadCurrentContext {
 public:
  ~ThreadCurrentContext() {
    if (const auto state = state_.lock()) state->release_from_this_thread();
  }
  void note(const std::shared_ptr<const ContextState>& state) { state_ = state; }

 private:
  std::weak_ptr<const ContextState> state_;
};

}  // namespace

void note_current_on_this_thread(const std::shared_ptr<const ContextState>& state) {
  thread_local ThreadCurrentContext current;
  current.note(state);
}

void ContextState::throw_if_unusable() const {
  if (released) {
    throw Error("this gpgpu::Context was released; objects made from it can no longer be used");
  }
  if (!lost_reason.empty()) throw ContextLostError(lost_reason, GL_CONTEXT_LOST);
}

void ContextState::refuse_while_capturing(const char* what) const {
  if (capture == nullptr) return;
  throw UnsupportedError(fmt::format(
      "{} while a gpgpu::Sequence captures this Context's kernels: only ComputeKernel runs "
      "are recorded, and this would run at once, out of order with them; do it before or "
      "after the capture",
      what));
}

TransferEngine& ContextState::engine() {
  ensure_current();
  return engine_while_current();
}

TransferEngine& ContextState::engine_while_current() {
  if (!engine_) engine_ = std::make_unique<TransferEngine>(*this, data_path);
  return *engine_;
}

void ContextState::drop_attachments() noexcept {
  auto dropped = std::move(attachments);
  attachments.clear();
  dropped.clear();
}

void ContextState::release() noexcept {
  if (released) return;
  drop_attachments();  // they free their GL objects while the context still exists
  // Then the engine: it completes its transfers and frees its GL objects while the context
  // still exists (attachments may have used it).
  if (engine_) {
    engine_->release();
    engine_.reset();
  }
  // A lost context's objects are gone with it (and its GPU may still be busy): try_make_current
  // refuses it, so they are not touched.
  const bool current = try_make_current();
  if (current && !buffer_views.empty()) {
    glDeleteTextures(static_cast<GLsizei>(buffer_views.size()), buffer_views.data());
  }
  buffer_views.clear();
  if (current) {
    programs.clear();  // deletes the GL programs while their context is current
  } else {
    // The context lives on another thread (or is lost): deleting its objects here is
    // impossible, and destroying the context below frees them with it.
    programs.abandon_all();
  }
  release_native();
  // After the context: its imports hold their own references to the memory.
  buffer_memory.reset();
  released = true;
}

namespace {

double milliseconds(std::chrono::nanoseconds duration) {
  return std::chrono::duration<double, std::milli>(duration).count();
}

std::string reset_status_text(const ExtensionFunctions& ext) {
  if (ext.get_graphics_reset_status == nullptr) return "";
  switch (ext.get_graphics_reset_status()) {
    case GL_GUILTY_CONTEXT_RESET:
      return " The GPU was reset because of this context.";
    case GL_INNOCENT_CONTEXT_RESET:
      return " The GPU was reset because of another context.";
    case GL_UNKNOWN_CONTEXT_RESET:
      return " The GPU was reset.";
    default:
      return "";
  }
}

}  // namespace

void ContextState::wait_within_timeout(std::chrono::steady_clock::time_point started,
                                       const std::string& what) {
  if (timeout.count() <= 0) return;
  const auto deadline = started + timeout;
  GlFence fence;
  fence.insert();
  const bool finished = fence.wait_until(deadline);
  const auto took = std::chrono::steady_clock::now() - started;
  if (finished && took <= timeout) return;
  if (finished) {
    // The driver ran the work inside the call (llvmpipe's compute dispatches): it is over,
    // only late. Nothing was committed to the caller yet, and the context is fine.
    throw TimeoutError(fmt::format(
        "{} took {:.1f} ms, longer than the Context's timeout of {:.1f} ms "
        "(ContextOptions::timeout); its results were discarded (host arrays are unchanged, "
        "Buffers and Textures it wrote hold its late results) and the Context stays usable",
        what, milliseconds(took), milliseconds(timeout)));
  }
  lost_reason = fmt::format(
      "a kernel ({}) did not finish within the Context's timeout of {:.1f} ms and the Context "
      "was abandoned with the GPU maybe still running it; make a new gpgpu::Context.{}",
      what, milliseconds(timeout), reset_status_text(ext));
  throw TimeoutError(
      fmt::format("{} did not finish within the Context's timeout of {:.1f} ms "
                  "(ContextOptions::timeout); host arrays are unchanged. {}",
                  what, milliseconds(timeout), lost_reason));
}

void refuse_without(bool supported, const ContextState& state, const char* what,
                    const char* because) {
  if (supported) return;
  throw UnsupportedError(fmt::format("{} is not available on {} ({}): {}", what,
                                     state.platform.name, state.info.renderer, because));
}

namespace {
// Once per process: results may be wrong, so it is said where a user sees it.
void warn_stale_uniforms(const DeviceInfo& info) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::fprintf(stderr,
                 "gpgpu: warning: on %s a compute dispatch ran with the uniform values of an "
                 "earlier one (checked when the Context was made); kernels whose loops or "
                 "branches test uniforms may give wrong results. Mesa's zink on a CPU device "
                 "does this with ZINK_INLINE_UNIFORMS on (docs/portability.md).\n",
                 info.renderer.c_str());
  });
}
}  // namespace

// ContextOptions::imported_buffer_bytes resolved for the device; 0: no Buffer imports memory.
std::size_t imported_buffer_threshold(const ContextOptions& options, const DeviceInfo& info) {
  if (options.imported_buffer_bytes < -1) {
    throw ContextError(fmt::format(
        "ContextOptions::imported_buffer_bytes is {}: give -1 (auto), 0 (never) or a size in bytes",
        options.imported_buffer_bytes));
  }
  if (options.imported_buffer_bytes >= 0) {
    return static_cast<std::size_t>(options.imported_buffer_bytes);
  }
  if (const char* env = std::getenv("GPGPU_IMPORTED_BUFFER_BYTES"); env != nullptr && *env) {
    char* end = nullptr;
    const long long bytes = std::strtoll(env, &end, 10);
    if (*end != '\0' || bytes < 0) {
      throw ContextError(fmt::format(
          "GPGPU_IMPORTED_BUFFER_BYTES is \"{}\": give a size in bytes (0: never import)", env));
    }
    return static_cast<std::size_t>(bytes);
  }
  // A software device's memory is the host's whichever way it is made.
  return info.is_software ? 0 : default_imported_buffer_bytes;
}

void finish_context_setup(ContextState& state, const ContextOptions& options) {
  apply_limit_profile(state.info, options);  // before anything plans with the limits
  state.ext = load_extension_functions(state.info);
  state.data_path = options.data_path;
  if (options.debug) enable_debug_output(state.info);
  state.debug = options.debug;
  // First: what the uniform probe looks for depends on the programs dispatched before it.
  state.info.uniforms_reach_every_dispatch =
      uniforms_reach_every_dispatch(state.info, state.platform);
  if (!state.info.uniforms_reach_every_dispatch) warn_stale_uniforms(state.info);
  const LoopLimit loops = measure_loop_limit(state.info, state.platform);
  state.info.max_loop_iterations = loops.max_iterations;
  state.info.loop_cap_shared_by_all_loops = loops.shared_by_all_loops;
  state.info.loop_probe_iterations = loops.probe_iterations;
  // A GPU behind Mesa's software EGL device (zink on a GPU's Vulkan driver) is no CPU device.
  if (state.info.is_software &&
      measure_groups_in_flight(state.info, state.platform) > gpu_groups_in_flight) {
    state.info.is_software = false;
  }
  if (state.info.is_software) {
    // The primitives' emulated subgroups (ops/primitives/subgroup_glsl.hpp) are offered only
    // where kernels compile as GLSL ES 3.20: compiled as 3.10 (a context held to OpenGL ES 3.1,
    // such as the es31-minimum profile), llvmpipe on a 2-core AMD EPYC gave them wrong sums
    // although the probe still found lockstep vectors (docs/portability.md, "lockstep").
    state.info.lockstep_width =
        state.info.gl_minor >= 2 ? measure_lockstep_width(state.info, state.platform) : 0;
    state.info.work_completes_in_call = measure_work_completes_in_call(state.info, state.platform);
  }
  state.timeout = options.timeout;
  state.imported_buffer_bytes = imported_buffer_threshold(options, state.info);
  state.programs.set_limit(options.program_cache_limit);
  // WebGL has no program binaries: there every process compiles (the browser keeps its own).
  state.binaries = std::make_unique<ProgramBinaryCache>(
      state.info, options.cache_programs && state.platform.program_binaries);
}

}  // namespace detail

Context::Context(const ContextOptions& options) : state_(detail::make_context_state(options)) {}

Context::~Context() {
  if (state_) state_->drop_attachments();
}
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&& other) noexcept {
  if (this != &other) {
    if (state_) state_->drop_attachments();
    state_ = std::move(other.state_);
  }
  return *this;
}

const DeviceInfo& Context::info() const {
  if (!state_) throw Error("this gpgpu::Context was moved from");
  return state_->info;
}

void Context::make_current() const {
  if (!state_) throw Error("this gpgpu::Context was moved from");
  state_->ensure_current();
}

void Context::make_not_current() const {
  if (state_) state_->release_from_this_thread();
}

void Context::finish() const {
  make_current();
  GL(glFinish());
}

void Context::flush() const {
  make_current();
  GL(glFlush());
}

void Context::clear_program_cache() {
  make_current();
  state_->programs.clear();
}

std::size_t Context::cached_program_count() const {
  return state_ ? state_->programs.size() : 0;
}

ProgramCounts Context::program_counts() const {
  return state_ ? state_->program_counts : ProgramCounts{};
}

void Context::release() {
  if (state_) state_->release();
}

bool Context::released() const noexcept {
  return !state_ || state_->released;
}

void Context::set_data_path(const DataPathOptions& options) {
  make_current();
  // Check the options against the device before anything changes.
  detail::resolve_data_path(options, state_->info, state_->platform);
  state_->data_path = options;
  if (state_->has_engine()) state_->engine().configure(options);
}

DataPathOptions Context::data_path() const {
  make_current();
  return state_->engine().options();
}

DataPathStats Context::data_path_stats() const {
  make_current();
  return state_->engine().stats();
}

void Context::trim_device_pool() {
  make_current();
  state_->engine().trim();
}

void* Context::find_attachment(const std::string& key) const {
  make_current();  // throws for a released or moved-from Context
  const auto it = state_->attachments.find(key);
  return it == state_->attachments.end() ? nullptr : it->second.get();
}

void Context::add_attachment(const std::string& key, std::shared_ptr<void> value) const {
  make_current();
  state_->attachments[key] = std::move(value);
}

void Context::clear_attachments() const noexcept {
  if (state_) state_->drop_attachments();
}

}  // namespace gpgpu
