// The EGL platform's read-back (gl/platform.hpp): a buffer is mapped for reading and copied
// out; the mapping waits for the GPU work that writes it.
#include <cstring>

#include "gl/gl_buffer.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::detail {

void read_gl_buffer(GLuint id, std::size_t offset, std::size_t bytes, void* out) {
  GL(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
  GL(glBindBuffer(GL_COPY_READ_BUFFER, id));
  void* mapped = GL(glMapBufferRange(GL_COPY_READ_BUFFER, checked_size(offset), checked_size(bytes),
                                     GL_MAP_READ_BIT));
  if (mapped == nullptr) {
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    throw DriverError("glMapBufferRange returned no pointer for a read-back");
  }
  std::memcpy(out, mapped, bytes);
  const GLboolean intact = glUnmapBuffer(GL_COPY_READ_BUFFER);
  check_gl("glUnmapBuffer");
  GL(glBindBuffer(GL_COPY_READ_BUFFER, 0));
  if (intact != GL_TRUE) {
    throw DriverError(
        "the buffer's contents were lost while mapped (glUnmapBuffer returned false)");
  }
}

}  // namespace gpgpu::detail
