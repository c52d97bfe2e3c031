#include "gl/shared_context.hpp"

#include <vector>

#include <fmt/format.h>

#include "gl/context_state.hpp"

namespace gpgpu::detail {

namespace {

// The config `main` was made with: EGL_NO_CONFIG_KHR when it has none (config id 0).
bool config_of(const ContextState& main, EGLConfig& config) {
  EGLint id = 0;
  if (eglQueryContext(main.display, main.context, EGL_CONFIG_ID, &id) != EGL_TRUE) return false;
  if (id == 0) {
    config = EGL_NO_CONFIG_KHR;
    return true;
  }
  const EGLint wanted[] = {EGL_CONFIG_ID, id, EGL_NONE};
  EGLint found = 0;
  return eglChooseConfig(main.display, wanted, &config, 1, &found) == EGL_TRUE && found == 1;
}

std::vector<EGLint> attributes_like(const ContextState& main) {
  std::vector<EGLint> a = {EGL_CONTEXT_MAJOR_VERSION, main.info.gl_major, EGL_CONTEXT_MINOR_VERSION,
                           main.info.gl_minor};
  if (main.info.reset_notification) {
    a.insert(a.end(),
             {EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT, EGL_LOSE_CONTEXT_ON_RESET_EXT});
  }
  if (main.info.robust_buffer_access) {
    a.insert(a.end(), {EGL_CONTEXT_OPENGL_ROBUST_ACCESS_EXT, EGL_TRUE});
  }
  a.push_back(EGL_NONE);
  return a;
}

}  // namespace

SharedContext::~SharedContext() {
  if (context_ != EGL_NO_CONTEXT) eglDestroyContext(display_, context_);
  if (surface_ != EGL_NO_SURFACE) eglDestroySurface(display_, surface_);
  eglGetError();
}

bool SharedContext::make_current() noexcept {
  if (eglBindAPI(EGL_OPENGL_ES_API) != EGL_TRUE) return false;
  const bool ok = eglMakeCurrent(display_, surface_, surface_, context_) == EGL_TRUE;
  if (!ok) eglGetError();
  return ok;
}

void SharedContext::release_current() noexcept {
  eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglReleaseThread();
  eglGetError();
}

std::unique_ptr<SharedContext> make_shared_context(const ContextState& main, std::string& why) {
  EGLConfig config = EGL_NO_CONFIG_KHR;
  if (!config_of(main, config)) {
    why =
        fmt::format("the Context's EGL config cannot be found ({})", egl_error_name(eglGetError()));
    return nullptr;
  }
  std::unique_ptr<SharedContext> shared(new SharedContext());
  shared->display_ = main.display;
  const std::vector<EGLint> attributes = attributes_like(main);
  shared->context_ = eglCreateContext(main.display, config, main.context, attributes.data());
  if (shared->context_ == EGL_NO_CONTEXT) {
    why = fmt::format("eglCreateContext (shared) failed ({})", egl_error_name(eglGetError()));
    return nullptr;
  }
  // Where the Context needed a pbuffer (no surfaceless contexts), so does its partner.
  if (main.surface != EGL_NO_SURFACE) {
    const EGLint size[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    shared->surface_ = eglCreatePbufferSurface(main.display, config, size);
    if (shared->surface_ == EGL_NO_SURFACE) {
      why = fmt::format("eglCreatePbufferSurface failed ({})", egl_error_name(eglGetError()));
      return nullptr;
    }
  }
  return shared;
}

}  // namespace gpgpu::detail
