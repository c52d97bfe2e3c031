#include "gl/gl_name.hpp"

#include "gl/gl_buffer.hpp"

namespace gpgpu::detail {

namespace {

void delete_current(GlKind kind, GLuint name) noexcept {
  switch (kind) {
    case GlKind::Buffer:
      glDeleteBuffers(1, &name);
      break;
    case GlKind::Texture:
      glDeleteTextures(1, &name);
      break;
    case GlKind::Framebuffer:
      glDeleteFramebuffers(1, &name);
      break;
    case GlKind::VertexArray:
      glDeleteVertexArrays(1, &name);
      break;
    case GlKind::TransformFeedback:
      glDeleteTransformFeedbacks(1, &name);
      break;
    case GlKind::Query:
      glDeleteQueries(1, &name);
      break;
  }
  glGetError();  // nothing to undo if a delete fails; keep the error flag clean
}

GLuint generate(GlKind kind) {
  GLuint name = 0;
  switch (kind) {
    case GlKind::Buffer:
      GL(glGenBuffers(1, &name));
      break;
    case GlKind::Texture:
      GL(glGenTextures(1, &name));
      break;
    case GlKind::Framebuffer:
      GL(glGenFramebuffers(1, &name));
      break;
    case GlKind::VertexArray:
      GL(glGenVertexArrays(1, &name));
      break;
    case GlKind::TransformFeedback:
      GL(glGenTransformFeedbacks(1, &name));
      break;
    case GlKind::Query:
      GL(glGenQueries(1, &name));
      break;
  }
  return name;
}

}  // namespace

void delete_gl_name(GlKind kind, ContextState* state, unsigned name) noexcept {
  if (name == 0) return;
  // Without a context that can be made current here, the name cannot be deleted; destroying
  // (or having destroyed) its context frees it.
  if (state != nullptr && !state->try_make_current()) return;
  delete_current(kind, name);
  // The memory under an imported buffer is freed once GL has let go of the buffer.
  if (kind == GlKind::Buffer && state != nullptr && state->buffer_memory) {
    state->buffer_memory->release(name);
  }
}

template <GlKind Kind>
GlName<Kind> make_gl_name(ContextState& state) {
  return GlName<Kind>(state.shared_from_this(), generate(Kind));
}

template GlBuffer make_gl_name<GlKind::Buffer>(ContextState&);
template GlTexture make_gl_name<GlKind::Texture>(ContextState&);
template GlFramebuffer make_gl_name<GlKind::Framebuffer>(ContextState&);
template GlVertexArray make_gl_name<GlKind::VertexArray>(ContextState&);
template GlTransformFeedback make_gl_name<GlKind::TransformFeedback>(ContextState&);
template GlQuery make_gl_name<GlKind::Query>(ContextState&);

GlBuffer make_gl_buffer(ContextState& state, std::size_t bytes, const void* data, GLenum usage) {
  return GlBuffer(state.shared_from_this(), create_gl_buffer(bytes, data, usage));
}

}  // namespace gpgpu::detail
