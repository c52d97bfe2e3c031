// Internal: a framebuffer whose colour attachments are textures, checked for completeness.
// Used to render fragment kernels into textures and to read textures back (glReadPixels).
#pragma once

#include <string>
#include <vector>

#include "gl/gl.hpp"
#include "gpgpu/texel_type.hpp"
#include "gl/scoped_gl_name.hpp"

namespace gpgpu::detail {

struct ColorAttachment {
  GLuint texture = 0;
  TexelType type = TexelType::Float;
  int location = 0;  // GL_COLOR_ATTACHMENT0 + location
  int layer = -1;    // a layer of a 3-D texture, or -1 for a 2-D texture
  std::string what;  // names the attachment in messages ("output R")
};

class Framebuffer {
 public:
  // Makes a framebuffer, binds it to GL_FRAMEBUFFER (draw and read), attaches the textures,
  // routes fragment output `location` to attachment `location` (glDrawBuffers) and checks
  // completeness. With no attachments it is a 1x1 framebuffer that draws nothing: what a
  // draw call needs where the context has no default framebuffer (surfaceless EGL), as
  // transform feedback does. Throws UnsupportedError naming the attachments and formats when the
  // driver refuses the combination.
  Framebuffer(const std::vector<ColorAttachment>& attachments, const std::string& label);
  // Unbinds (back to the default framebuffer) and deletes.
  ~Framebuffer();
  Framebuffer(const Framebuffer&) = delete;
  Framebuffer& operator=(const Framebuffer&) = delete;

  GLuint id() const { return framebuffer_.id(); }

 private:
  ScopedFramebuffer framebuffer_;
};

// "GL_FRAMEBUFFER_UNSUPPORTED" and friends.
const char* framebuffer_status_name(GLenum status);

}  // namespace gpgpu::detail
