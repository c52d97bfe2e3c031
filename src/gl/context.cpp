#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gl/device_info.hpp"
#include "gl/egl_devices.hpp"
#include "gl/gl_fence.hpp"
#include "gl/loop_limit.hpp"
#include "gpgpu/error.hpp"
#include "shader/program.hpp"
#include "shader/program_binary_cache.hpp"
#include "transfer/transfer_engine.hpp"

namespace gpgpu {

namespace detail {

namespace {
std::mutex display_mutex;
std::map<EGLDisplay, int>& display_counts() {
  static auto* counts = new std::map<EGLDisplay, int>();  // never destroyed: used at exit
  return *counts;
}
}  // namespace

bool initialize_and_retain_display(EGLDisplay display, std::string& why) {
  // Under the lock, so that another thread's release cannot terminate the display between
  // our eglInitialize and our count.
  std::lock_guard lock(display_mutex);
  EGLint major = 0, minor = 0;
  if (eglInitialize(display, &major, &minor) != EGL_TRUE) {
    why = fmt::format("eglInitialize failed ({})", egl_error_name(eglGetError()));
    return false;
  }
  ++display_counts()[display];
  return true;
}

void release_display(EGLDisplay display) noexcept {
  std::lock_guard lock(display_mutex);
  auto& counts = display_counts();
  auto it = counts.find(display);
  if (it == counts.end()) return;
  if (--it->second == 0) {
    counts.erase(it);
    eglTerminate(display);
  }
}

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

void ContextState::ensure_current() const {
  if (released) {
    throw Error("this gpgpu::Context was released; objects made from it can no longer be used");
  }
  if (!lost_reason.empty()) throw ContextLostError(lost_reason, GL_CONTEXT_LOST);
  if (eglGetCurrentContext() == context) return;
  if (eglMakeCurrent(display, surface, surface, context) != EGL_TRUE) {
    EGLint code = eglGetError();
    if (code == EGL_BAD_ACCESS) {
      throw ContextError(
          "the gpgpu::Context is current on another thread; a Context serves one thread at a "
          "time: on the thread that used it last, call make_not_current() (a thread that ends "
          "releases it by itself), or make one Context per thread");
    }
    if (code == EGL_CONTEXT_LOST) {
      throw ContextLostError(
          "eglMakeCurrent: the GL context was lost (GPU reset or driver "
          "failure); make a new gpgpu::Context",
          GL_CONTEXT_LOST);
    }
    throw ContextError(fmt::format("eglMakeCurrent failed with {}", egl_error_name(code)));
  }
  note_current_on_this_thread(shared_from_this());
}

bool ContextState::try_make_current() const noexcept {
  // A lost context's objects go with it when it is destroyed; never touch them one by one.
  if (released || context == EGL_NO_CONTEXT || !lost_reason.empty()) return false;
  if (eglGetCurrentContext() == context) return true;
  bool ok = eglMakeCurrent(display, surface, surface, context) == EGL_TRUE;
  if (!ok) eglGetError();
  return ok;
}

void ContextState::release_from_this_thread() const noexcept {
  if (context == EGL_NO_CONTEXT || eglGetCurrentContext() != context) return;
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglGetError();
}

TransferEngine& ContextState::engine() {
  ensure_current();
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
  if (context != EGL_NO_CONTEXT) {
    if (eglGetCurrentContext() == context) {
      eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    }
    eglDestroyContext(display, context);
    context = EGL_NO_CONTEXT;
  }
  if (surface != EGL_NO_SURFACE) {
    eglDestroySurface(display, surface);
    surface = EGL_NO_SURFACE;
  }
  if (display != EGL_NO_DISPLAY) {
    release_display(display);
    display = EGL_NO_DISPLAY;
  }
  eglGetError();
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

namespace {

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool is_index(const std::string& text) {
  return !text.empty() && text.size() < 4 &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

const char* install_hint =
    "install an EGL + OpenGL ES implementation: on Debian/Ubuntu `apt-get install libegl1 "
    "libgles2 libegl-mesa0 libgl1-mesa-dri` (Mesa, includes the llvmpipe CPU fallback), or "
    "the GPU vendor's driver with its EGL library";

bool has_robustness(const DeviceInfo& info) {
  return info.has_extension("GL_KHR_robustness") || info.has_extension("GL_EXT_robustness") ||
         (info.gl_major == 3 && info.gl_minor >= 2);
}

// A GLES 3.2 (else 3.1) context; with reset notification where the display offers it, and
// with robust buffer access when asked for (both dropped if the driver refuses them).
// `granted` records what the context got.
EGLContext create_egl_context(EGLDisplay display, EGLConfig config, const ContextOptions& options,
                              const std::vector<std::string>& display_exts, DeviceInfo& granted) {
  const bool robustness = has_word(display_exts, "EGL_EXT_create_context_robustness");
  for (const bool robust : {true, false}) {
    if (robust && !robustness) continue;
    for (EGLint minor : {2, 1}) {
      if (minor == 2 && !options.prefer_gles32) continue;
      std::vector<EGLint> attributes = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION,
                                        minor};
      if (options.debug) attributes.insert(attributes.end(), {EGL_CONTEXT_OPENGL_DEBUG, EGL_TRUE});
      if (robust) {
        attributes.insert(attributes.end(), {EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT,
                                             EGL_LOSE_CONTEXT_ON_RESET_EXT});
        if (options.robust_buffer_access) {
          attributes.insert(attributes.end(), {EGL_CONTEXT_OPENGL_ROBUST_ACCESS_EXT, EGL_TRUE});
        }
      }
      attributes.push_back(EGL_NONE);
      EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, attributes.data());
      if (context != EGL_NO_CONTEXT) {
        granted.reset_notification = robust;
        granted.robust_buffer_access = robust && options.robust_buffer_access;
        return context;
      }
      eglGetError();
    }
  }
  return EGL_NO_CONTEXT;
}

// "1.5 ..." (EGL_VERSION starts with major.minor).
bool egl_version_at_least(const std::string& version, int major, int minor) {
  int got_major = 0, got_minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &got_major, &got_minor) != 2) return false;
  return got_major > major || (got_major == major && got_minor >= minor);
}

// Tries to make a context on one candidate. Returns the state, or null with `why` filled.
std::shared_ptr<ContextState> try_create(const DeviceCandidate& candidate,
                                         const ContextOptions& options, std::string& why) {
  auto get_platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (get_platform_display == nullptr) {
    why = "eglGetPlatformDisplayEXT is missing (EGL_EXT_platform_base)";
    return nullptr;
  }
  void* native = candidate.platform == EGL_PLATFORM_DEVICE_EXT
                     ? static_cast<void*>(candidate.device)
                     : static_cast<void*>(EGL_DEFAULT_DISPLAY);
  EGLDisplay display = get_platform_display(candidate.platform, native, nullptr);
  if (display == EGL_NO_DISPLAY) {
    why = fmt::format("eglGetPlatformDisplayEXT failed ({})", egl_error_name(eglGetError()));
    return nullptr;
  }
  if (!initialize_and_retain_display(display, why)) return nullptr;
  auto state = std::make_shared<ContextState>();
  state->display = display;  // from here on, ~ContextState releases it

  if (eglBindAPI(EGL_OPENGL_ES_API) != EGL_TRUE) {
    why = fmt::format("eglBindAPI(EGL_OPENGL_ES_API) failed ({}): the EGL library has no GLES",
                      egl_error_name(eglGetError()));
    return nullptr;
  }
  const auto display_exts = split_words(eglQueryString(display, EGL_EXTENSIONS));
  const bool no_config = has_word(display_exts, "EGL_KHR_no_config_context");
  const bool surfaceless = has_word(display_exts, "EGL_KHR_surfaceless_context");

  EGLConfig config = EGL_NO_CONFIG_KHR;
  if (!no_config || !surfaceless) {
    const EGLint wanted[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE,
                             EGL_PBUFFER_BIT, EGL_NONE};
    EGLint found = 0;
    if (eglChooseConfig(display, wanted, &config, 1, &found) != EGL_TRUE || found == 0) {
      why = "no EGL config supports OpenGL ES 3 with pbuffers";
      return nullptr;
    }
  }
  state->context = create_egl_context(display, config, options, display_exts, state->info);
  if (state->context == EGL_NO_CONTEXT) {
    why = "the device cannot make an OpenGL ES 3.1 context (compute shaders need 3.1 or newer)";
    return nullptr;
  }
  if (!surfaceless) {
    const EGLint size[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    state->surface = eglCreatePbufferSurface(display, config, size);
    if (state->surface == EGL_NO_SURFACE) {
      why = fmt::format("eglCreatePbufferSurface failed ({})", egl_error_name(eglGetError()));
      return nullptr;
    }
  }
  if (eglMakeCurrent(display, state->surface, state->surface, state->context) != EGL_TRUE) {
    why = fmt::format("eglMakeCurrent failed ({})", egl_error_name(eglGetError()));
    return nullptr;
  }
  note_current_on_this_thread(state);
  const bool reset_notification = state->info.reset_notification;
  const bool robust_access = state->info.robust_buffer_access;
  state->info = read_device_info(display, candidate.description);
  state->info.reset_notification = reset_notification && has_robustness(state->info);
  state->info.robust_buffer_access = robust_access;
  if (state->info.gl_major < 3 || (state->info.gl_major == 3 && state->info.gl_minor < 1)) {
    why = fmt::format("the context is OpenGL ES {}.{} ('{}'); gpgpu needs 3.1 or newer",
                      state->info.gl_major, state->info.gl_minor, state->info.version);
    return nullptr;
  }
  state->ext = load_extension_functions(state->info);
  state->has_egl_fences = egl_version_at_least(state->info.egl_version, 1, 5);
  state->data_path = options.data_path;
  if (options.debug) enable_debug_output(state->info);
  const LoopLimit loops = measure_loop_limit(state->info);
  state->info.max_loop_iterations = loops.max_iterations;
  state->info.loop_cap_shared_by_all_loops = loops.shared_by_all_loops;
  state->info.loop_probe_iterations = loops.probe_iterations;
  state->timeout = options.timeout;
  state->programs.set_limit(options.program_cache_limit);
  state->binaries = std::make_unique<ProgramBinaryCache>(state->info, options.cache_programs);
  return state;
}

std::string describe_candidates(const std::vector<DeviceCandidate>& candidates) {
  std::string text;
  for (const auto& c : candidates) {
    text += fmt::format("\n  {}: {}{}", c.description.index, c.description.kind,
                        c.description.drm_file.empty() ? "" : " " + c.description.drm_file);
  }
  return text.empty() ? "\n  (none)" : text;
}

}  // namespace
}  // namespace detail

std::vector<DeviceDescription> list_devices() {
  std::vector<DeviceDescription> list;
  for (const auto& c : detail::enumerate_candidates()) list.push_back(c.description);
  return list;
}

Context::Context(const ContextOptions& options) {
  using namespace detail;
  std::string wanted = options.device;
  if (wanted.empty() || wanted == "auto") {
    const char* env = std::getenv("GPGPU_DEVICE");
    wanted = (env != nullptr && *env != '\0') ? env : "auto";
  }
  wanted = lowercase(wanted);

  const auto client = egl_client_extensions();
  if (client.empty()) {
    throw ContextError(fmt::format(
        "no usable EGL library: eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS) returned nothing "
        "(EGL 1.5 or EGL_EXT_client_extensions is required); {}",
        install_hint));
  }
  const auto candidates = enumerate_candidates();
  if (candidates.empty()) {
    throw ContextError(
        fmt::format("no EGL device and no surfaceless platform found (client extensions: {}); {}",
                    fmt::join(client, " "), install_hint));
  }

  // Order of trial: hardware GPUs first, then the software device, then surfaceless.
  std::vector<const DeviceCandidate*> order;
  for (const char* kind : {"gpu", "software", "surfaceless"}) {
    for (const auto& c : candidates) {
      if (c.description.kind == kind) order.push_back(&c);
    }
  }
  if (is_index(wanted)) {
    const auto index = static_cast<std::size_t>(std::stoi(wanted));
    if (index >= candidates.size()) {
      throw ContextError(fmt::format("device index {} does not exist; the devices are:{}", index,
                                     describe_candidates(candidates)));
    }
    order = {&candidates[index]};
  }

  std::string failures;
  std::string renderers_seen;
  for (const DeviceCandidate* candidate : order) {
    std::string why;
    auto state = try_create(*candidate, options, why);
    if (!state) {
      failures += fmt::format("\n  device {} ({}): {}", candidate->description.index,
                              candidate->description.kind, why);
      continue;
    }
    if (wanted != "auto" && !is_index(wanted)) {
      const std::string haystack = lowercase(state->info.renderer + " " + state->info.vendor + " " +
                                             state->info.device_kind);
      if (haystack.find(wanted) == std::string::npos) {
        renderers_seen += fmt::format("\n  device {}: {} ({})", candidate->description.index,
                                      state->info.renderer, state->info.vendor);
        continue;  // state's destructor tears the context down
      }
    }
    state_ = std::move(state);
    return;
  }
  if (!renderers_seen.empty()) {
    throw ContextError(
        fmt::format("no device's renderer matches '{}' (from ContextOptions::device or "
                    "GPGPU_DEVICE); found:{}{}",
                    wanted, renderers_seen, failures));
  }
  throw ContextError(fmt::format("could not make an OpenGL ES 3.1+ context on any device:{}\n{}",
                                 failures, install_hint));
}

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
  detail::resolve_data_path(options, state_->info, state_->has_egl_fences);
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
