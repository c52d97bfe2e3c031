// The EGL platform's Context (gl/platform.hpp): a headless OpenGL ES 3.1+ context on an EGL
// device (a GPU, Mesa's software device) or Mesa's surfaceless platform, made current on one
// thread at a time.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "gl/device_info.hpp"
#include "gpgpu/error.hpp"
#include "platform/egl/egl.hpp"
#include "platform/egl/egl_devices.hpp"
#include "shader/program_binary_cache.hpp"  // ContextState owns one
#include "transfer/transfer_engine.hpp"     // ContextState owns one

namespace gpgpu {

namespace detail {

const char* egl_error_name(EGLint code) {
  switch (code) {
    case EGL_SUCCESS:
      return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED:
      return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS:
      return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC:
      return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE:
      return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG:
      return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT:
      return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE:
      return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY:
      return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH:
      return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP:
      return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW:
      return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER:
      return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE:
      return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST:
      return "EGL_CONTEXT_LOST";
    default:
      return "unknown EGL error";
  }
}

void throw_egl(const char* call) {
  EGLint code = eglGetError();
  throw ContextError(fmt::format("{} failed with {} (0x{:04X})", call, egl_error_name(code), code));
}

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

void NativeContextDeleter::operator()(NativeContext* native) const noexcept {
  delete native;
}

void ContextState::ensure_current() const {
  throw_if_unusable();
  if (eglGetCurrentContext() == native->context) return;
  if (eglMakeCurrent(native->display, native->surface, native->surface, native->context) !=
      EGL_TRUE) {
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
  if (released || !native || native->context == EGL_NO_CONTEXT || !lost_reason.empty())
    return false;
  if (eglGetCurrentContext() == native->context) return true;
  bool ok = eglMakeCurrent(native->display, native->surface, native->surface, native->context) ==
            EGL_TRUE;
  if (!ok) eglGetError();
  return ok;
}

void ContextState::release_from_this_thread() const noexcept {
  if (!native || native->context == EGL_NO_CONTEXT || eglGetCurrentContext() != native->context)
    return;
  eglMakeCurrent(native->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglGetError();
}

bool ContextState::is_current() const noexcept {
  return native && native->context != EGL_NO_CONTEXT && eglGetCurrentContext() == native->context;
}

void ContextState::release_native() noexcept {
  if (!native) return;
  NativeContext& n = *native;
  if (n.context != EGL_NO_CONTEXT) {
    if (eglGetCurrentContext() == n.context) {
      eglMakeCurrent(n.display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    }
    eglDestroyContext(n.display, n.context);
    n.context = EGL_NO_CONTEXT;
  }
  if (n.surface != EGL_NO_SURFACE) {
    eglDestroySurface(n.display, n.surface);
    n.surface = EGL_NO_SURFACE;
  }
  if (n.display != EGL_NO_DISPLAY) {
    release_display(n.display);
    n.display = EGL_NO_DISPLAY;
  }
  eglGetError();
  eglGetError();
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

// The EGL side of DeviceInfo: the display's vendor, version and extensions.
void read_egl_info(EGLDisplay display, DeviceInfo& info) {
  const char* egl_vendor = eglQueryString(display, EGL_VENDOR);
  const char* egl_version = eglQueryString(display, EGL_VERSION);
  info.egl_vendor = egl_vendor ? egl_vendor : "";
  info.egl_version = egl_version ? egl_version : "";
  info.egl_extensions = split_words(eglQueryString(display, EGL_EXTENSIONS));
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
  state->native.reset(new NativeContext);
  NativeContext& handles = *state->native;
  handles.display = display;  // from here on, ~ContextState releases it
  state->platform.name = "EGL";

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
  handles.config = config;
  handles.context = create_egl_context(display, config, options, display_exts, state->info);
  if (handles.context == EGL_NO_CONTEXT) {
    why = "the device cannot make an OpenGL ES 3.1 context (compute shaders need 3.1 or newer)";
    return nullptr;
  }
  if (!surfaceless) {
    const EGLint size[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    handles.surface = eglCreatePbufferSurface(display, config, size);
    if (handles.surface == EGL_NO_SURFACE) {
      why = fmt::format("eglCreatePbufferSurface failed ({})", egl_error_name(eglGetError()));
      return nullptr;
    }
  }
  if (eglMakeCurrent(display, handles.surface, handles.surface, handles.context) != EGL_TRUE) {
    why = fmt::format("eglMakeCurrent failed ({})", egl_error_name(eglGetError()));
    return nullptr;
  }
  note_current_on_this_thread(state);
  const bool reset_notification = state->info.reset_notification;
  const bool robust_access = state->info.robust_buffer_access;
  state->info = read_device_info(candidate.description, candidate.description.kind == "software" ||
                                                            display_on_software_device(display));
  read_egl_info(display, state->info);
  state->info.reset_notification = reset_notification && has_robustness(state->info);
  state->info.robust_buffer_access = robust_access;
  if (state->info.gl_major < 3 || (state->info.gl_major == 3 && state->info.gl_minor < 1)) {
    why = fmt::format("the context is OpenGL ES {}.{} ('{}'); gpgpu needs 3.1 or newer",
                      state->info.gl_major, state->info.gl_minor, state->info.version);
    return nullptr;
  }
  handles.has_egl_fences = egl_version_at_least(state->info.egl_version, 1, 5);
  state->platform.thread_fences = handles.has_egl_fences;
  state->platform.shared_contexts = true;
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

std::shared_ptr<ContextState> make_context_state(const ContextOptions& options) {
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
    finish_context_setup(*state, options);
    return state;
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

void* platform_proc_address(const char* name) {
  return reinterpret_cast<void*>(eglGetProcAddress(name));
}

}  // namespace detail

std::vector<DeviceDescription> list_devices() {
  std::vector<DeviceDescription> list;
  for (const auto& c : detail::enumerate_candidates()) list.push_back(c.description);
  return list;
}

}  // namespace gpgpu
