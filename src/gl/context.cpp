#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gl/device_info.hpp"
#include "gl/egl_devices.hpp"
#include "gpgpu/error.hpp"
#include "shader/program.hpp"

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

ContextState::~ContextState() { release(); }

void ContextState::ensure_current() const {
  if (released) {
    throw Error("this gpgpu::Context was released; objects made from it can no longer be used");
  }
  if (eglGetCurrentContext() == context) return;
  if (eglMakeCurrent(display, surface, surface, context) != EGL_TRUE) {
    EGLint code = eglGetError();
    if (code == EGL_BAD_ACCESS) {
      throw ContextError(
          "the gpgpu::Context is current on another thread; a Context serves one thread at a "
          "time (make one Context per thread)");
    }
    throw ContextError(fmt::format("eglMakeCurrent failed with {}", egl_error_name(code)));
  }
}

bool ContextState::try_make_current() const noexcept {
  if (released || context == EGL_NO_CONTEXT) return false;
  if (eglGetCurrentContext() == context) return true;
  bool ok = eglMakeCurrent(display, surface, surface, context) == EGL_TRUE;
  if (!ok) eglGetError();
  return ok;
}

void ContextState::drop_attachments() noexcept {
  auto dropped = std::move(attachments);
  attachments.clear();
  dropped.clear();
}

void ContextState::release() noexcept {
  if (released) return;
  drop_attachments();  // they free their GL objects while the context still exists
  const bool current = try_make_current();
  if (current) {
    programs.clear();  // deletes the GL programs while their context is current
  } else {
    // The context lives on another thread: deleting its objects here is impossible, and
    // destroying the context below frees them with it.
    for (auto& [key, program] : programs) program->abandon();
    programs.clear();
  }
  if (context != EGL_NO_CONTEXT) {
    if (current) eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
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
  for (EGLint minor : {2, 1}) {
    if (minor == 2 && !options.prefer_gles32) continue;
    std::vector<EGLint> attributes = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION,
                                      minor};
    if (options.debug) {
      attributes.insert(attributes.end(), {EGL_CONTEXT_OPENGL_DEBUG, EGL_TRUE});
    }
    attributes.push_back(EGL_NONE);
    state->context = eglCreateContext(display, config, EGL_NO_CONTEXT, attributes.data());
    if (state->context != EGL_NO_CONTEXT) break;
    eglGetError();
  }
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
  state->info = read_device_info(display, candidate.description);
  if (state->info.gl_major < 3 || (state->info.gl_major == 3 && state->info.gl_minor < 1)) {
    why = fmt::format("the context is OpenGL ES {}.{} ('{}'); gpgpu needs 3.1 or newer",
                      state->info.gl_major, state->info.gl_minor, state->info.version);
    return nullptr;
  }
  state->ext = load_extension_functions(state->info);
  if (options.debug) enable_debug_output(state->info);
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
    throw ContextError(fmt::format(
        "no EGL device and no surfaceless platform found (client extensions: {}); {}",
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
      const std::string haystack = lowercase(state->info.renderer + " " + state->info.vendor +
                                             " " + state->info.device_kind);
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
    throw ContextError(fmt::format(
        "no device's renderer matches '{}' (from ContextOptions::device or GPGPU_DEVICE); found:{}{}",
        wanted, renderers_seen, failures));
  }
  throw ContextError(
      fmt::format("could not make an OpenGL ES 3.1+ context on any device:{}\n{}", failures,
                  install_hint));
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

void Context::finish() const {
  make_current();
  GL(glFinish());
}

void Context::clear_program_cache() {
  make_current();
  state_->programs.clear();
}

std::size_t Context::cached_program_count() const { return state_ ? state_->programs.size() : 0; }

void Context::release() {
  if (state_) state_->release();
}

bool Context::released() const noexcept { return !state_ || state_->released; }

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
