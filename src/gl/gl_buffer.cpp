#include "gl/gl_buffer.hpp"

#include <limits>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::detail {

GLsizeiptr checked_size(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(std::numeric_limits<GLsizeiptr>::max())) {
    throw LimitError(fmt::format("{} bytes do not fit a GL buffer size", bytes));
  }
  return static_cast<GLsizeiptr>(bytes);
}

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

}  // namespace gpgpu::detail

namespace gpgpu::detail {

void copy_gl_buffer(GLuint source, std::size_t source_offset, GLuint destination,
                    std::size_t destination_offset, std::size_t bytes) {
  GL(glBindBuffer(GL_COPY_READ_BUFFER, source));
  GL(glBindBuffer(GL_COPY_WRITE_BUFFER, destination));
  GL(glCopyBufferSubData(
      GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, static_cast<GLintptr>(source_offset),
      static_cast<GLintptr>(destination_offset), static_cast<GLsizeiptr>(bytes)));
  GL(glBindBuffer(GL_COPY_READ_BUFFER, 0));
  GL(glBindBuffer(GL_COPY_WRITE_BUFFER, 0));
}

}  // namespace gpgpu::detail
