#include "gl/framebuffer.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "resources/texel_format.hpp"

namespace gpgpu::detail {

const char* framebuffer_status_name(GLenum status) {
  switch (status) {
    case GL_FRAMEBUFFER_COMPLETE:
      return "GL_FRAMEBUFFER_COMPLETE";
    case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT:
      return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT:
      return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE:
      return "GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE";
    case GL_FRAMEBUFFER_UNSUPPORTED:
      return "GL_FRAMEBUFFER_UNSUPPORTED";
    case GL_FRAMEBUFFER_UNDEFINED:
      return "GL_FRAMEBUFFER_UNDEFINED";
    default:
      return "an unknown framebuffer status";
  }
}

namespace {

void detach(const std::vector<ColorAttachment>& attachments) noexcept {
  for (const auto& a : attachments) {
    const auto point = static_cast<GLenum>(GL_COLOR_ATTACHMENT0 + a.location);
    if (a.layer < 0) {
      glFramebufferTexture2D(GL_FRAMEBUFFER, point, GL_TEXTURE_2D, 0, 0);
    } else {
      glFramebufferTextureLayer(GL_FRAMEBUFFER, point, 0, 0, 0);
    }
  }
}

}  // namespace

FramebufferScope::FramebufferScope(GLuint framebuffer,
                                   const std::vector<ColorAttachment>& attachments,
                                   const std::string& label)
    : attached_(attachments) {
  GL(glBindFramebuffer(GL_FRAMEBUFFER, framebuffer));
  // Framebuffer 0 is the platform's own (WebGL2's canvas): complete, and nothing to attach.
  if (framebuffer == 0 && attachments.empty()) return;
  try {
    std::vector<GLenum> draw_buffers;
    for (const auto& a : attachments) {
      const auto point = static_cast<GLenum>(GL_COLOR_ATTACHMENT0 + a.location);
      if (a.layer < 0) {
        GL(glFramebufferTexture2D(GL_FRAMEBUFFER, point, GL_TEXTURE_2D, a.texture, 0));
      } else {
        GL(glFramebufferTextureLayer(GL_FRAMEBUFFER, point, a.texture, 0, a.layer));
      }
      const auto slot = static_cast<std::size_t>(a.location);
      if (draw_buffers.size() <= slot) draw_buffers.resize(slot + 1, GL_NONE);
      draw_buffers[slot] = point;
    }
    if (attachments.empty()) {
      // A framebuffer with no attachments (OpenGL ES 3.1) is complete once it has a size.
      GL(glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_WIDTH, 1));
      GL(glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_HEIGHT, 1));
    }
    GL(glDrawBuffers(static_cast<GLsizei>(draw_buffers.size()), draw_buffers.data()));
    const GLenum status = GL(glCheckFramebufferStatus(GL_FRAMEBUFFER));
    if (status != GL_FRAMEBUFFER_COMPLETE) {
      std::string formats;
      for (const auto& a : attachments) {
        formats += fmt::format("{}{} ({} texels at colour attachment {})",
                               formats.empty() ? "" : ", ", a.what, to_string(a.type), a.location);
      }
      throw UnsupportedError(fmt::format(
          "{}: the driver cannot render into {} (framebuffer status {}); float targets need "
          "GL_EXT_color_buffer_float and vec3 (RGB32F) targets are never renderable in "
          "OpenGL ES — use float, vec2, vec4, int, uint, ivec4 or uvec4",
          label, formats, framebuffer_status_name(status)));
    }
  } catch (...) {
    detach(attached_);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glGetError();
    throw;
  }
}

FramebufferScope::~FramebufferScope() {
  detach(attached_);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glGetError();
}

}  // namespace gpgpu::detail
