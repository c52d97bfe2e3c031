// Internal: raw GL buffer objects, shared by Buffer and the temporary arrays of a run.
#pragma once

#include <cstddef>

#include "gl/gl.hpp"

namespace gpgpu::detail {

// A GL buffer of `bytes`, filled from `data` if not null. Throws OutOfMemoryError.
GLuint create_gl_buffer(std::size_t bytes, const void* data, GLenum usage);
void write_gl_buffer(GLuint id, std::size_t offset, std::size_t bytes, const void* data);
// Reads back after making shader writes visible; waits for the GPU.
void read_gl_buffer(GLuint id, std::size_t offset, std::size_t bytes, void* out);

// Deletes a GL buffer when it goes out of scope.
class ScopedGlBuffer {
 public:
  ScopedGlBuffer() = default;
  explicit ScopedGlBuffer(GLuint id) : id_(id) {}
  ~ScopedGlBuffer() {
    if (id_ != 0) {
      glDeleteBuffers(1, &id_);
      glGetError();
    }
  }
  ScopedGlBuffer(ScopedGlBuffer&& o) noexcept : id_(o.id_) { o.id_ = 0; }
  ScopedGlBuffer& operator=(ScopedGlBuffer&& o) noexcept {
    if (this != &o) {
      if (id_ != 0) glDeleteBuffers(1, &id_);
      id_ = o.id_;
      o.id_ = 0;
    }
    return *this;
  }
  ScopedGlBuffer(const ScopedGlBuffer&) = delete;
  GLuint id() const { return id_; }

 private:
  GLuint id_ = 0;
};

}  // namespace gpgpu::detail
