// Internal: how each TexelType is stored, uploaded, read back and bound in GL.
#pragma once

#include "gl/gl.hpp"
#include "gpgpu/texel_type.hpp"

namespace gpgpu::detail {

struct TexelFormat {
  GLenum internal_format;  // GL_R32F...
  GLenum upload_format;    // GL_RED, GL_RGBA_INTEGER... for glTexSubImage
  GLenum gl_type;          // GL_FLOAT, GL_INT, GL_UNSIGNED_INT
  bool is_integer;
  // Colour-renderable: integer formats always (OpenGL ES 3.0); R32F, RG32F and RGBA32F
  // only with GL_EXT_color_buffer_float; RGB32F never.
  bool renderable_without_extension;
  bool renderable_with_float_extension;
  // The `layout(...)` an image variable must declare for this format, or null where GLSL ES
  // has no image format for it (rg32f, rgb32f).
  const char* image_layout;
  // What glReadPixels always accepts for such a framebuffer (GL_RGBA + GL_FLOAT for float,
  // GL_RGBA_INTEGER + GL_INT / GL_UNSIGNED_INT for integers): four values per texel.
  GLenum read_format;
};

const TexelFormat& texel_format(TexelType type);

// True when the device can attach textures of this type to a framebuffer.
bool is_color_renderable(TexelType type, bool has_color_buffer_float);

// The texel type a fragment-shader output or a transform-feedback value of this GLSL type
// renders into: float->Float, vec2->Vec2, vec4->Vec4, int->Int, uint->Uint, ivec4->IVec4,
// uvec4->UVec4, vec3->Vec3. Returns false for other types (matrices, ivec2...).
bool texel_type_for_glsl(GLenum glsl_type, TexelType& out);

}  // namespace gpgpu::detail
