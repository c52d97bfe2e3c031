// Internal: a framebuffer whose colour attachments are textures, checked for completeness.
// Used to render fragment kernels into textures and to read textures back (glReadPixels).
#pragma once

#include <string>
#include <vector>

#include "gl/gl.hpp"
#include "gl/gl_name.hpp"
#include "gpgpu/texel_type.hpp"

namespace gpgpu::detail {

struct ColorAttachment {
  GLuint texture = 0;
  TexelType type = TexelType::Float;
  int location = 0;  // GL_COLOR_ATTACHMENT0 + location
  int layer = -1;    // a layer of a 3-D texture, or -1 for a 2-D texture
  std::string what;  // names the attachment in messages ("output R")
};

// A framebuffer object, kept by its owner (a kernel keeps one for all its runs).
class Framebuffer {
 public:
  Framebuffer() = default;
  explicit Framebuffer(ContextState& state) : name_(make_gl_name<GlKind::Framebuffer>(state)) {}
  GLuint id() const { return name_.id(); }
  explicit operator bool() const { return static_cast<bool>(name_); }

 private:
  GlFramebuffer name_;
};

// Binds a framebuffer to GL_FRAMEBUFFER (draw and read) for a scope, attaches the textures,
// routes fragment output `location` to attachment `location` (glDrawBuffers) and checks
// completeness. With no attachments it is a 1x1 framebuffer that draws nothing: what a draw
// call needs where the context has no default framebuffer (surfaceless EGL), as transform
// feedback does. Throws UnsupportedError naming the attachments and formats when the driver
// refuses the combination. On leaving the scope the textures are detached (so that the
// framebuffer keeps none alive) and the default framebuffer is bound again.
class FramebufferScope {
 public:
  FramebufferScope(GLuint framebuffer, const std::vector<ColorAttachment>& attachments,
                   const std::string& label);
  ~FramebufferScope();
  FramebufferScope(const FramebufferScope&) = delete;
  FramebufferScope& operator=(const FramebufferScope&) = delete;

 private:
  std::vector<ColorAttachment> attached_;
};

// "GL_FRAMEBUFFER_UNSUPPORTED" and friends.
const char* framebuffer_status_name(GLenum status);

}  // namespace gpgpu::detail
