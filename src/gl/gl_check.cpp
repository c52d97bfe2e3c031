#include "gl/gl.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::detail {

const char* gl_error_name(GLenum code) {
  switch (code) {
    case GL_NO_ERROR:
      return "GL_NO_ERROR";
    case GL_INVALID_ENUM:
      return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
      return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
      return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
      return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
      return "GL_OUT_OF_MEMORY";
    case GL_CONTEXT_LOST:
      return "GL_CONTEXT_LOST";
    default:
      return "unknown GL error";
  }
}

namespace {
// Messages of the debug callback (synchronous, so on the thread of the call that caused
// them) not yet reported.
thread_local std::string pending_debug_errors;

std::string take_debug_errors() {
  std::string messages;
  messages.swap(pending_debug_errors);
  return messages;
}
}  // namespace

void note_debug_error(const char* message) {
  pending_debug_errors += pending_debug_errors.empty() ? "" : "; ";
  pending_debug_errors += message;
}

void check_gl(const char* call) {
  GLenum first = glGetError();
  if (first == GL_NO_ERROR) {
    if (!pending_debug_errors.empty()) {
      throw DriverError(fmt::format("{}: the driver reported an error through the debug output: {}",
                                    call, take_debug_errors()));
    }
    return;
  }
  if (!pending_debug_errors.empty()) {
    throw GLError(fmt::format("{} failed with {} (0x{:04X}); the driver said: {}", call,
                              gl_error_name(first), first, take_debug_errors()),
                  first);
  }
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
    throw ContextLostError(fmt::format("{} failed: the GL context was lost (GPU reset or driver "
                                       "failure); make a new gpgpu::Context",
                                       call),
                           first);
  }
  throw GLError(fmt::format("{} failed with {} (0x{:04X})", call, gl_error_name(first), first),
                first);
}

}  // namespace gpgpu::detail
