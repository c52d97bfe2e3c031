#include "gl/gl_buffer.hpp"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::detail {

namespace {
GLsizeiptr checked_size(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(std::numeric_limits<GLsizeiptr>::max())) {
    throw LimitError(fmt::format("{} bytes do not fit a GL buffer size", bytes));
  }
  return static_cast<GLsizeiptr>(bytes);
}
}  // namespace

GLuint create_gl_buffer(std::size_t bytes, const void* data, GLenum usage) {
  GLuint id = 0;
  GL(glGenBuffers(1, &id));
  try {
    // GL_COPY_WRITE_BUFFER: a binding point with no side effect on draws or dispatches.
    GL(glBindBuffer(GL_COPY_WRITE_BUFFER, id));
    GL(glBufferData(GL_COPY_WRITE_BUFFER, checked_size(bytes), data, usage));
    GL(glBindBuffer(GL_COPY_WRITE_BUFFER, 0));
  } catch (...) {
    glDeleteBuffers(1, &id);
    glGetError();
    throw;
  }
  return id;
}

void write_gl_buffer(GLuint id, std::size_t offset, std::size_t bytes, const void* data) {
  GL(glBindBuffer(GL_COPY_WRITE_BUFFER, id));
  GL(glBufferSubData(GL_COPY_WRITE_BUFFER, checked_size(offset), checked_size(bytes), data));
  GL(glBindBuffer(GL_COPY_WRITE_BUFFER, 0));
}

void read_gl_buffer(GLuint id, std::size_t offset, std::size_t bytes, void* out) {
  GL(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
  GL(glBindBuffer(GL_COPY_READ_BUFFER, id));
  void* mapped = GL(glMapBufferRange(GL_COPY_READ_BUFFER, checked_size(offset),
                                     checked_size(bytes), GL_MAP_READ_BIT));
  if (mapped == nullptr) {
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    throw GLError("glMapBufferRange returned no pointer for a read-back", 0);
  }
  std::memcpy(out, mapped, bytes);
  const GLboolean intact = glUnmapBuffer(GL_COPY_READ_BUFFER);
  check_gl("glUnmapBuffer");
  GL(glBindBuffer(GL_COPY_READ_BUFFER, 0));
  if (intact != GL_TRUE) {
    throw GLError("the buffer's contents were lost while mapped (glUnmapBuffer returned false)", 0);
  }
}

}  // namespace gpgpu::detail
