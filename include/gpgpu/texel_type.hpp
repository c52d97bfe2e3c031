// gpgpu/texel_type.hpp — what one texel of a gpgpu::Texture holds.
//
// Textures hold exact 32-bit values, never normalised or filtered ones:
//   TexelType   GL format   GLSL sampler            texelFetch fills
//   Float       R32F        sampler2D / sampler3D   .r
//   Vec2        RG32F       sampler2D / sampler3D   .rg
//   Vec3        RGB32F      sampler2D / sampler3D   .rgb
//   Vec4        RGBA32F     sampler2D / sampler3D   .rgba
//   Int         R32I        isampler2D / isampler3D .r
//   Uint        R32UI       usampler2D / usampler3D .r
//   IVec4       RGBA32I     isampler2D / isampler3D .rgba
//   UVec4       RGBA32UI    usampler2D / usampler3D .rgba
#pragma once

#include <string_view>

#include "gpgpu/element_type.hpp"

namespace gpgpu {

// What one texel of a Texture holds: 1 to 4 float components, or 1 or 4 int or uint ones.
enum class TexelType { Float, Vec2, Vec3, Vec4, Int, Uint, IVec4, UVec4 };

// The GLSL name of the texel ("float", "vec3", "uint", "ivec4").
constexpr std::string_view to_string(TexelType type) {
  switch (type) {
    case TexelType::Float:
      return "float";
    case TexelType::Vec2:
      return "vec2";
    case TexelType::Vec3:
      return "vec3";
    case TexelType::Vec4:
      return "vec4";
    case TexelType::Int:
      return "int";
    case TexelType::Uint:
      return "uint";
    case TexelType::IVec4:
      return "ivec4";
    case TexelType::UVec4:
      return "uvec4";
  }
  return "?";
}

// Host values per texel.
constexpr int components(TexelType type) {
  switch (type) {
    case TexelType::Vec2:
      return 2;
    case TexelType::Vec3:
      return 3;
    case TexelType::Vec4:
    case TexelType::IVec4:
    case TexelType::UVec4:
      return 4;
    default:
      return 1;
  }
}

// The host element type of each value.
constexpr ElementType element_type(TexelType type) {
  switch (type) {
    case TexelType::Int:
    case TexelType::IVec4:
      return ElementType::Int32;
    case TexelType::Uint:
    case TexelType::UVec4:
      return ElementType::Uint32;
    default:
      return ElementType::Float32;
  }
}

// Parses a GLSL texel name ("float", "vec2", "vec3", "vec4", "int", "uint", "ivec4",
// "uvec4"); throws ArgumentError listing the accepted names for anything else.
TexelType texel_type_from_name(std::string_view name);

}  // namespace gpgpu
