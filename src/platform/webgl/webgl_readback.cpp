// The WebGL2 platform's read-back (gl/platform.hpp): WebGL2 cannot map a buffer, but
// glGetBufferSubData copies it out, after the GPU work that writes it.
#include "gl/gl_buffer.hpp"

// <webgl/webgl2.h> declares it too, beside the whole WebGL API; this is the one call needed.
extern "C" void glGetBufferSubData(GLenum target, GLintptr offset, GLsizeiptr size, void* data);

namespace gpgpu::detail {

void read_gl_buffer(GLuint id, std::size_t offset, std::size_t bytes, void* out) {
  GL(glBindBuffer(GL_COPY_READ_BUFFER, id));
  try {
    GL(glGetBufferSubData(GL_COPY_READ_BUFFER, checked_size(offset), checked_size(bytes), out));
  } catch (...) {
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glGetError();
    throw;
  }
  GL(glBindBuffer(GL_COPY_READ_BUFFER, 0));
}

}  // namespace gpgpu::detail
