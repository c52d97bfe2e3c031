// The EGL platform's second contexts (gl/platform.hpp, make_shared_context): a context in the
// Context's share group for a thread of its own, the transfer engine's copy lanes.
//
// EGL shares buffers and sync objects between contexts made with the same display and a
// compatible config; the reset strategy must match too (EGL_BAD_MATCH otherwise), so the
// context repeats the Context's config, version and robustness attributes.
#include <fmt/format.h>

#include <vector>

#include "gpgpu/error.hpp"
#include "platform/egl/egl.hpp"

namespace gpgpu::detail {

struct SharedContext {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface surface = EGL_NO_SURFACE;
};

namespace {

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

void SharedContextDeleter::operator()(SharedContext* shared) const noexcept {
  if (shared == nullptr) return;
  if (shared->context != EGL_NO_CONTEXT) eglDestroyContext(shared->display, shared->context);
  if (shared->surface != EGL_NO_SURFACE) eglDestroySurface(shared->display, shared->surface);
  eglGetError();
  delete shared;
}

SharedContextHandle make_shared_context(const ContextState& state) {
  refuse_without(state.platform.shared_contexts && state.native, state,
                 "a second context (DataPathOptions::copy_context)",
                 "this platform cannot share a context's objects with another");
  const NativeContext& main = *state.native;
  SharedContextHandle shared(new SharedContext);
  shared->display = main.display;
  const std::vector<EGLint> attributes = attributes_like(state);
  shared->context = eglCreateContext(main.display, main.config, main.context, attributes.data());
  if (shared->context == EGL_NO_CONTEXT) throw_egl("eglCreateContext (shared with the Context)");
  // Where the Context needed a pbuffer (no surfaceless contexts), so does its partner.
  if (main.surface != EGL_NO_SURFACE) {
    const EGLint size[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    shared->surface = eglCreatePbufferSurface(main.display, main.config, size);
    if (shared->surface == EGL_NO_SURFACE) throw_egl("eglCreatePbufferSurface (shared context)");
  }
  return shared;
}

bool make_shared_current(SharedContext& shared) noexcept {
  if (eglBindAPI(EGL_OPENGL_ES_API) != EGL_TRUE) {
    eglGetError();
    return false;
  }
  const bool ok =
      eglMakeCurrent(shared.display, shared.surface, shared.surface, shared.context) == EGL_TRUE;
  if (!ok) eglGetError();
  return ok;
}

void release_shared_current(SharedContext& shared) noexcept {
  eglMakeCurrent(shared.display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglReleaseThread();
  eglGetError();
}

}  // namespace gpgpu::detail
