// The OpenGL ES 3.1/3.2 entry points that WebGL2 (OpenGL ES 3.0) does not have, for the
// browser build: each refuses with UnsupportedError naming the call and the limit, so that a
// path the core did not turn away earlier (it checks PlatformTraits first: ComputeKernel,
// Profiler, data path options, texture read-backs) still fails clearly instead of linking to
// nothing. Nothing here emulates the missing feature.
#include <fmt/format.h>

#include "gl/gl.hpp"
#include "gpgpu/error.hpp"

namespace {

[[noreturn]] void refuse(const char* call, const char* feature) {
  throw gpgpu::UnsupportedError(
      fmt::format("{} is not available in WebGL2 (OpenGL ES 3.0): {} needs OpenGL ES 3.1 or a "
                  "native build of gpgpu",
                  call, feature));
}

constexpr const char* compute = "compute shaders";
constexpr const char* introspection = "program-interface queries (storage blocks)";
constexpr const char* mapping =
    "mapping buffers into memory (WebGL2 reads them with "
    "glGetBufferSubData)";

}  // namespace

extern "C" {

void GL_APIENTRY glDispatchCompute(GLuint, GLuint, GLuint) {
  refuse("glDispatchCompute", compute);
}

void GL_APIENTRY glBindImageTexture(GLuint, GLuint, GLint, GLboolean, GLint, GLenum, GLenum) {
  refuse("glBindImageTexture", "image load/store");
}

// Memory barriers order writes made by compute shaders and image stores, which WebGL2 has
// none of: every write it can make is ordered by the API already, so there is nothing to do.
void GL_APIENTRY glMemoryBarrier(GLbitfield) {}

void GL_APIENTRY glFramebufferParameteri(GLenum, GLenum, GLint) {
  refuse("glFramebufferParameteri", "framebuffers without attachments");
}

void GL_APIENTRY glTexBuffer(GLenum, GLenum, GLuint) {
  refuse("glTexBuffer", "buffer textures (gpgpu::texels)");
}

void GL_APIENTRY glGetProgramInterfaceiv(GLuint, GLenum, GLenum, GLint*) {
  refuse("glGetProgramInterfaceiv", introspection);
}

void GL_APIENTRY glGetProgramResourceiv(GLuint, GLenum, GLuint, GLsizei, const GLenum*, GLsizei,
                                        GLsizei*, GLint*) {
  refuse("glGetProgramResourceiv", introspection);
}

void GL_APIENTRY glGetProgramResourceName(GLuint, GLenum, GLuint, GLsizei, GLsizei*, GLchar*) {
  refuse("glGetProgramResourceName", introspection);
}

void GL_APIENTRY glDebugMessageCallback(GLDEBUGPROC, const void*) {
  refuse("glDebugMessageCallback", "debug output (ContextOptions::debug)");
}

void* GL_APIENTRY glMapBufferRange(GLenum, GLintptr, GLsizeiptr, GLbitfield) {
  refuse("glMapBufferRange", mapping);
}

GLboolean GL_APIENTRY glUnmapBuffer(GLenum) {
  refuse("glUnmapBuffer", mapping);
}

}  // extern "C"
