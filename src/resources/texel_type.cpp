#include "resources/texel_format.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu {

TexelType texel_type_from_name(std::string_view name) {
  for (auto type : {TexelType::Float, TexelType::Vec2, TexelType::Vec3, TexelType::Vec4,
                    TexelType::Int, TexelType::Uint, TexelType::IVec4, TexelType::UVec4}) {
    if (to_string(type) == name) return type;
  }
  throw ArgumentError(fmt::format(
      "'{}' is not a texel type; use float, vec2, vec3, vec4, int, uint, ivec4 or uvec4", name));
}

namespace detail {

const TexelFormat& texel_format(TexelType type) {
  static const TexelFormat r32f{GL_R32F, GL_RED, GL_FLOAT, false, false, true, "r32f", GL_RGBA};
  static const TexelFormat rg32f{GL_RG32F, GL_RG, GL_FLOAT, false, false, true, nullptr, GL_RGBA};
  static const TexelFormat rgb32f{GL_RGB32F, GL_RGB, GL_FLOAT, false,
                                  false,     false,  nullptr,  GL_RGBA};
  static const TexelFormat rgba32f{GL_RGBA32F, GL_RGBA, GL_FLOAT,  false,
                                   false,      true,    "rgba32f", GL_RGBA};
  static const TexelFormat r32i{GL_R32I, GL_RED_INTEGER, GL_INT, true,
                                true,    true,           "r32i", GL_RGBA_INTEGER};
  static const TexelFormat r32ui{GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, true,
                                 true,     true,           "r32ui",         GL_RGBA_INTEGER};
  static const TexelFormat rgba32i{GL_RGBA32I, GL_RGBA_INTEGER, GL_INT,         true, true,
                                   true,       "rgba32i",       GL_RGBA_INTEGER};
  static const TexelFormat rgba32ui{GL_RGBA32UI, GL_RGBA_INTEGER, GL_UNSIGNED_INT, true, true,
                                    true,        "rgba32ui",      GL_RGBA_INTEGER};
  switch (type) {
    case TexelType::Float:
      return r32f;
    case TexelType::Vec2:
      return rg32f;
    case TexelType::Vec3:
      return rgb32f;
    case TexelType::Vec4:
      return rgba32f;
    case TexelType::Int:
      return r32i;
    case TexelType::Uint:
      return r32ui;
    case TexelType::IVec4:
      return rgba32i;
    case TexelType::UVec4:
      return rgba32ui;
  }
  return r32f;
}

bool is_color_renderable(TexelType type, bool has_color_buffer_float) {
  const auto& f = texel_format(type);
  return f.renderable_without_extension ||
         (has_color_buffer_float && f.renderable_with_float_extension);
}

bool texel_type_for_glsl(GLenum glsl_type, TexelType& out) {
  switch (glsl_type) {
    case GL_FLOAT:
      out = TexelType::Float;
      return true;
    case GL_FLOAT_VEC2:
      out = TexelType::Vec2;
      return true;
    case GL_FLOAT_VEC3:
      out = TexelType::Vec3;
      return true;
    case GL_FLOAT_VEC4:
      out = TexelType::Vec4;
      return true;
    case GL_INT:
      out = TexelType::Int;
      return true;
    case GL_UNSIGNED_INT:
      out = TexelType::Uint;
      return true;
    case GL_INT_VEC4:
      out = TexelType::IVec4;
      return true;
    case GL_UNSIGNED_INT_VEC4:
      out = TexelType::UVec4;
      return true;
    default:
      return false;
  }
}

}  // namespace detail
}  // namespace gpgpu
