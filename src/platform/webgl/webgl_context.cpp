// The WebGL2 platform's Context (gl/platform.hpp), for the browser build (Emscripten): a
// WebGL2 context on a canvas of its own that the page never shows (library_gpgpu.js makes
// it), with OpenGL ES 3.0's semantics. Everything runs on the page's thread.
#include <emscripten/html5.h>

#include <string>

#include <fmt/format.h>

#include "gl/device_info.hpp"
#include "gpgpu/error.hpp"
#include "transfer/transfer_engine.hpp"  // ContextState owns one

// library_gpgpu.js: a fresh canvas (an OffscreenCanvas where the browser has one) registered
// as an Emscripten event target; writes its target name ("!gpgpu-N") into `name`.
extern "C" void gpgpu_webgl_new_canvas(char* name, int capacity);
extern "C" void gpgpu_webgl_drop_canvas(const char* name);
// The GPU and driver behind the browser (WEBGL_debug_renderer_info), or empty.
extern "C" void gpgpu_webgl_unmasked_renderer(char* text, int capacity);

namespace gpgpu {

namespace detail {

struct NativeContext {
  EMSCRIPTEN_WEBGL_CONTEXT_HANDLE handle = 0;
  std::string canvas;  // the event-target name of its canvas
};

void NativeContextDeleter::operator()(NativeContext* native) const noexcept {
  delete native;
}

void ContextState::ensure_current() const {
  throw_if_unusable();
  if (emscripten_webgl_get_current_context() == native->handle) return;
  if (emscripten_is_webgl_context_lost(native->handle)) {
    throw ContextLostError(
        "the WebGL2 context was lost (the browser reset the GPU or reclaimed the context); make "
        "a new gpgpu::Context",
        GL_CONTEXT_LOST);
  }
  if (emscripten_webgl_make_context_current(native->handle) != EMSCRIPTEN_RESULT_SUCCESS) {
    throw ContextError("emscripten_webgl_make_context_current failed for a WebGL2 context");
  }
}

bool ContextState::try_make_current() const noexcept {
  if (released || !native || native->handle <= 0 || !lost_reason.empty()) return false;
  if (emscripten_webgl_get_current_context() == native->handle) return true;
  return emscripten_webgl_make_context_current(native->handle) == EMSCRIPTEN_RESULT_SUCCESS;
}

void ContextState::release_from_this_thread() const noexcept {
  // The page has one thread: a WebGL2 context is never handed to another.
}

bool ContextState::is_current() const noexcept {
  return native && native->handle > 0 && emscripten_webgl_get_current_context() == native->handle;
}

void ContextState::release_native() noexcept {
  if (!native) return;
  if (native->handle > 0) emscripten_webgl_destroy_context(native->handle);
  native->handle = 0;
  if (!native->canvas.empty()) gpgpu_webgl_drop_canvas(native->canvas.c_str());
  native->canvas.clear();
}

namespace {

// OpenGL ES 3.0, in a browser: no compute shaders, no mapped buffers, no program binaries;
// query results and fences become available only after the page has returned to the
// browser; one thread.
PlatformTraits webgl2_traits() {
  PlatformTraits t;
  t.name = "WebGL2";
  t.gles31 = false;
  t.mapped_buffers = false;
  t.waitable_queries = false;
  t.thread_fences = false;
  t.program_binaries = false;
  t.threads = false;
  return t;
}

void check_device_option(const ContextOptions& options) {
  const std::string& wanted = options.device;
  if (wanted.empty() || wanted == "auto" || wanted == "0" || wanted == "webgl2") return;
  throw ContextError(fmt::format(
      "device '{}' does not exist in the browser: the one device is the page's WebGL2 context "
      "(ContextOptions::device \"auto\", \"0\" or \"webgl2\")",
      wanted));
}

EMSCRIPTEN_WEBGL_CONTEXT_HANDLE create_webgl2_context(const std::string& canvas) {
  EmscriptenWebGLContextAttributes attributes;
  emscripten_webgl_init_context_attributes(&attributes);
  attributes.majorVersion = 2;
  attributes.minorVersion = 0;
  // Nothing is shown: no depth, stencil, antialiasing or alpha for the canvas itself.
  attributes.alpha = false;
  attributes.depth = false;
  attributes.stencil = false;
  attributes.antialias = false;
  attributes.preserveDrawingBuffer = false;
  attributes.powerPreference = EM_WEBGL_POWER_PREFERENCE_HIGH_PERFORMANCE;
  // Float render targets (EXT_color_buffer_float) must be enabled to be used.
  attributes.enableExtensionsByDefault = true;
  return emscripten_webgl_create_context(canvas.c_str(), &attributes);
}

// The renderer string of the GPU (or SwiftShader) behind the browser, where it tells it.
void read_unmasked_renderer(DeviceInfo& info) {
  char text[512] = {};
  gpgpu_webgl_unmasked_renderer(text, sizeof text);
  if (text[0] != '\0') info.renderer = text;
}

}  // namespace

std::shared_ptr<ContextState> make_context_state(const ContextOptions& options) {
  check_device_option(options);
  auto state = std::make_shared<ContextState>();
  state->native.reset(new NativeContext);
  char name[64] = {};
  gpgpu_webgl_new_canvas(name, sizeof name);
  state->native->canvas = name;
  state->native->handle = create_webgl2_context(state->native->canvas);
  if (state->native->handle <= 0) {
    throw ContextError(
        "the browser could not make a WebGL2 context: WebGL2 is missing or turned off (see "
        "chrome://gpu; headless Chromium needs --use-angle=swiftshader "
        "--enable-unsafe-swiftshader without a GPU)");
  }
  if (emscripten_webgl_make_context_current(state->native->handle) != EMSCRIPTEN_RESULT_SUCCESS) {
    throw ContextError("emscripten_webgl_make_context_current failed for a new WebGL2 context");
  }
  state->platform = webgl2_traits();
  DeviceDescription device;
  device.kind = "webgl2";
  state->info = read_device_info(device, false);
  read_unmasked_renderer(state->info);
  state->info.is_software =
      state->info.renderer.find("SwiftShader") != std::string::npos || state->info.is_software;
  finish_context_setup(*state, options);
  return state;
}

void* platform_proc_address(const char*) {
  // Extension entry points are reached through GL calls in WebGL2; the ones gpgpu fetches by
  // name (timer queries, buffer storage, reset status) have no use here.
  return nullptr;
}

}  // namespace detail

std::vector<DeviceDescription> list_devices() {
  DeviceDescription device;
  device.kind = "webgl2";
  return {device};
}

}  // namespace gpgpu
