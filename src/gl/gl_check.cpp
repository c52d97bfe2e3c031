#include "gl/gl.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::detail {

const char* gl_error_name(GLenum code) {
  switch (code) {
    case GL_NO_ERROR: return "GL_NO_ERROR";
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_CONTEXT_LOST: return "GL_CONTEXT_LOST";
    default: return "unknown GL error";
  }
}

const char* egl_error_name(EGLint code) {
  switch (code) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: return "unknown EGL error";
  }
}

void check_gl(const char* call) {
  GLenum first = glGetError();
  if (first == GL_NO_ERROR) return;
  // Drain the remaining flags: a driver may hold several, and a stale one would be blamed
  // on the next, innocent call.
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
  }
  if (first == GL_OUT_OF_MEMORY) {
    throw OutOfMemoryError(
        fmt::format("{} failed with GL_OUT_OF_MEMORY: the device could not allocate the memory "
                    "asked for; use smaller arrays or release buffers and textures first",
                    call),
        first);
  }
  if (first == GL_CONTEXT_LOST) {
    throw GLError(fmt::format("{} failed: the GL context was lost (GPU reset or driver "
                              "failure); make a new gpgpu::Context",
                              call),
                  first);
  }
  throw GLError(fmt::format("{} failed with {} (0x{:04X})", call, gl_error_name(first), first),
                first);
}

void throw_egl(const char* call) {
  EGLint code = eglGetError();
  throw ContextError(fmt::format("{} failed with {} (0x{:04X})", call, egl_error_name(code), code));
}

}  // namespace gpgpu::detail
