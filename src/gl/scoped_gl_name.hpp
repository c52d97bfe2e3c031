// Internal: RAII for the GL objects a run creates and deletes (framebuffers, vertex arrays,
// transform-feedback objects, textures, queries), so an exception never leaks one.
#pragma once

#include "gl/gl.hpp"

namespace gpgpu::detail {

// Owns one GL name made by Generate (glGen*) and deleted by Delete (glDelete*). Move-only.
template <void (*Generate)(GLsizei, GLuint*), void (*Delete)(GLsizei, const GLuint*)>
class ScopedGlName {
 public:
  ScopedGlName() = default;
  // Makes a new name now; throws GLError if the driver refuses.
  static ScopedGlName make() {
    ScopedGlName object;
    GL(Generate(1, &object.id_));
    return object;
  }
  ~ScopedGlName() { reset(); }
  ScopedGlName(ScopedGlName&& other) noexcept : id_(other.id_) { other.id_ = 0; }
  ScopedGlName& operator=(ScopedGlName&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = other.id_;
      other.id_ = 0;
    }
    return *this;
  }
  ScopedGlName(const ScopedGlName&) = delete;
  ScopedGlName& operator=(const ScopedGlName&) = delete;

  GLuint id() const noexcept { return id_; }
  // Gives up ownership without deleting (the caller now owns the name).
  GLuint release() noexcept {
    const GLuint id = id_;
    id_ = 0;
    return id;
  }
  void reset() noexcept {
    if (id_ != 0) {
      Delete(1, &id_);
      glGetError();  // nothing to undo if a delete fails; keep the error flag clean
      id_ = 0;
    }
  }

 private:
  GLuint id_ = 0;
};

// The GLES entry points are functions with C linkage; these wrappers give them the plain
// function-pointer types the template takes on every platform's calling convention.
inline void gen_framebuffers(GLsizei n, GLuint* ids) {
  glGenFramebuffers(n, ids);
}
inline void delete_framebuffers(GLsizei n, const GLuint* ids) {
  glDeleteFramebuffers(n, ids);
}
inline void gen_vertex_arrays(GLsizei n, GLuint* ids) {
  glGenVertexArrays(n, ids);
}
inline void delete_vertex_arrays(GLsizei n, const GLuint* ids) {
  glDeleteVertexArrays(n, ids);
}
inline void gen_transform_feedbacks(GLsizei n, GLuint* ids) {
  glGenTransformFeedbacks(n, ids);
}
inline void delete_transform_feedbacks(GLsizei n, const GLuint* ids) {
  glDeleteTransformFeedbacks(n, ids);
}
inline void gen_textures(GLsizei n, GLuint* ids) {
  glGenTextures(n, ids);
}
inline void delete_textures(GLsizei n, const GLuint* ids) {
  glDeleteTextures(n, ids);
}
inline void gen_queries(GLsizei n, GLuint* ids) {
  glGenQueries(n, ids);
}
inline void delete_queries(GLsizei n, const GLuint* ids) {
  glDeleteQueries(n, ids);
}

using ScopedFramebuffer = ScopedGlName<gen_framebuffers, delete_framebuffers>;
using ScopedVertexArray = ScopedGlName<gen_vertex_arrays, delete_vertex_arrays>;
using ScopedTransformFeedback = ScopedGlName<gen_transform_feedbacks, delete_transform_feedbacks>;
using ScopedTexture = ScopedGlName<gen_textures, delete_textures>;
using ScopedQuery = ScopedGlName<gen_queries, delete_queries>;

}  // namespace gpgpu::detail
