// Internal: the GLES 3.2 headers and the checking of every GL call. (The platform's own
// headers, EGL natively, are included only by src/platform/.)
#pragma once

#include <GLES3/gl32.h>

// gl2ext.h needs the types and GL_APIENTRY of gl32.h first.
#include <GLES2/gl2ext.h>

#include <string>
#include <type_traits>

namespace gpgpu::detail {

// Names a GL error code (GL_INVALID_OPERATION...).
const char* gl_error_name(GLenum code);

// Reads glGetError and throws GLError (OutOfMemoryError for GL_OUT_OF_MEMORY) naming the
// call that failed. Drains every pending error flag so the next check starts clean.
void check_gl(const char* call);

// Debug contexts (ContextOptions::debug): the driver's high-severity messages, collected on
// the calling thread by the debug callback and thrown by the next check_gl as a DriverError.
void note_debug_error(const char* message);

// Runs a GL call and checks it; returns what the call returns.
template <class Call>
auto gl_call(Call&& call, const char* text) {
  if constexpr (std::is_void_v<decltype(call())>) {
    call();
    check_gl(text);
  } else {
    auto result = call();
    check_gl(text);
    return result;
  }
}

}  // namespace gpgpu::detail

// GL(glBufferData(...)) runs the call and throws if it raised a GL error.
#define GL(expr) ::gpgpu::detail::gl_call([&]() { return expr; }, #expr)
