// Internal (EGL platform only): the EGL headers, the handles a native Context holds and
// EGL's error names.
#pragma once

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include "gl/context_state.hpp"

namespace gpgpu::detail {

struct NativeContext {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface surface = EGL_NO_SURFACE;   // a 1x1 pbuffer where surfaceless contexts are missing
  EGLConfig config = EGL_NO_CONFIG_KHR;  // what the context was made with (shared ones too)
  // EGL 1.5 fence syncs (eglCreateSync): waitable from a thread with no current context.
  bool has_egl_fences = false;
};

// Names an EGL error code (EGL_BAD_ACCESS...).
const char* egl_error_name(EGLint code);
// Throws ContextError naming the EGL call that failed and eglGetError's code.
[[noreturn]] void throw_egl(const char* call);

// Shared EGL display handles are reference counted: eglTerminate on a display that another
// Context (maybe on another thread) still uses would destroy that context too.
// eglInitialize + count, atomically with respect to release_display. False with `why` set
// when eglInitialize fails.
bool initialize_and_retain_display(EGLDisplay display, std::string& why);
void release_display(EGLDisplay display) noexcept;

}  // namespace gpgpu::detail
