#include "shader/glsl_type.hpp"

#include <fmt/format.h>

namespace gpgpu::detail {

namespace {

GlslType value(GLenum gl, const char* name, ElementType element, int rows, int columns = 1) {
  GlslType t;
  t.gl = gl;
  t.name = name;
  t.element = element;
  t.rows = rows;
  t.columns = columns;
  t.known = true;
  return t;
}

GlslType opaque(GLenum gl, const char* name, ElementType element, bool image) {
  GlslType t = value(gl, name, element, 1);
  t.is_sampler = !image;
  t.is_image = image;
  return t;
}

}  // namespace

GlslType describe_type(GLenum type) {
  constexpr auto F = ElementType::Float32;
  constexpr auto I = ElementType::Int32;
  constexpr auto U = ElementType::Uint32;
  switch (type) {
    case GL_FLOAT: return value(type, "float", F, 1);
    case GL_FLOAT_VEC2: return value(type, "vec2", F, 2);
    case GL_FLOAT_VEC3: return value(type, "vec3", F, 3);
    case GL_FLOAT_VEC4: return value(type, "vec4", F, 4);
    case GL_INT: return value(type, "int", I, 1);
    case GL_INT_VEC2: return value(type, "ivec2", I, 2);
    case GL_INT_VEC3: return value(type, "ivec3", I, 3);
    case GL_INT_VEC4: return value(type, "ivec4", I, 4);
    case GL_UNSIGNED_INT: return value(type, "uint", U, 1);
    case GL_UNSIGNED_INT_VEC2: return value(type, "uvec2", U, 2);
    case GL_UNSIGNED_INT_VEC3: return value(type, "uvec3", U, 3);
    case GL_UNSIGNED_INT_VEC4: return value(type, "uvec4", U, 4);
    case GL_BOOL:
    case GL_BOOL_VEC2:
    case GL_BOOL_VEC3:
    case GL_BOOL_VEC4: {
      const int n = type == GL_BOOL ? 1 : type == GL_BOOL_VEC2 ? 2 : type == GL_BOOL_VEC3 ? 3 : 4;
      static const char* names[] = {"bool", "bvec2", "bvec3", "bvec4"};
      GlslType t = value(type, names[n - 1], I, n);  // set from int32: 0 is false
      t.is_bool = true;
      return t;
    }
    // Matrices: GLSL matCxR has C columns of R rows.
    case GL_FLOAT_MAT2: return value(type, "mat2", F, 2, 2);
    case GL_FLOAT_MAT3: return value(type, "mat3", F, 3, 3);
    case GL_FLOAT_MAT4: return value(type, "mat4", F, 4, 4);
    case GL_FLOAT_MAT2x3: return value(type, "mat2x3", F, 3, 2);
    case GL_FLOAT_MAT2x4: return value(type, "mat2x4", F, 4, 2);
    case GL_FLOAT_MAT3x2: return value(type, "mat3x2", F, 2, 3);
    case GL_FLOAT_MAT3x4: return value(type, "mat3x4", F, 4, 3);
    case GL_FLOAT_MAT4x2: return value(type, "mat4x2", F, 2, 4);
    case GL_FLOAT_MAT4x3: return value(type, "mat4x3", F, 3, 4);
    case GL_SAMPLER_2D: return opaque(type, "sampler2D", F, false);
    case GL_SAMPLER_3D: return opaque(type, "sampler3D", F, false);
    case GL_SAMPLER_CUBE: return opaque(type, "samplerCube", F, false);
    case GL_SAMPLER_2D_ARRAY: return opaque(type, "sampler2DArray", F, false);
    case GL_SAMPLER_2D_SHADOW: return opaque(type, "sampler2DShadow", F, false);
    case GL_SAMPLER_BUFFER: return opaque(type, "samplerBuffer", F, false);
    case GL_INT_SAMPLER_2D: return opaque(type, "isampler2D", I, false);
    case GL_INT_SAMPLER_3D: return opaque(type, "isampler3D", I, false);
    case GL_INT_SAMPLER_2D_ARRAY: return opaque(type, "isampler2DArray", I, false);
    case GL_INT_SAMPLER_BUFFER: return opaque(type, "isamplerBuffer", I, false);
    case GL_UNSIGNED_INT_SAMPLER_2D: return opaque(type, "usampler2D", U, false);
    case GL_UNSIGNED_INT_SAMPLER_3D: return opaque(type, "usampler3D", U, false);
    case GL_UNSIGNED_INT_SAMPLER_2D_ARRAY: return opaque(type, "usampler2DArray", U, false);
    case GL_UNSIGNED_INT_SAMPLER_BUFFER: return opaque(type, "usamplerBuffer", U, false);
    case GL_IMAGE_2D: return opaque(type, "image2D", F, true);
    case GL_IMAGE_3D: return opaque(type, "image3D", F, true);
    case GL_IMAGE_2D_ARRAY: return opaque(type, "image2DArray", F, true);
    case GL_INT_IMAGE_2D: return opaque(type, "iimage2D", I, true);
    case GL_INT_IMAGE_3D: return opaque(type, "iimage3D", I, true);
    case GL_UNSIGNED_INT_IMAGE_2D: return opaque(type, "uimage2D", U, true);
    case GL_UNSIGNED_INT_IMAGE_3D: return opaque(type, "uimage3D", U, true);
    default: {
      GlslType t;
      t.gl = type;
      t.name = fmt::format("GL type 0x{:04X}", type);
      return t;
    }
  }
}

GlslType type_named(std::string_view name) {
  static constexpr GLenum values[] = {
      GL_FLOAT,        GL_FLOAT_VEC2,        GL_FLOAT_VEC3,        GL_FLOAT_VEC4,
      GL_INT,          GL_INT_VEC2,          GL_INT_VEC3,          GL_INT_VEC4,
      GL_UNSIGNED_INT, GL_UNSIGNED_INT_VEC2, GL_UNSIGNED_INT_VEC3, GL_UNSIGNED_INT_VEC4,
      GL_BOOL,         GL_BOOL_VEC2,         GL_BOOL_VEC3,         GL_BOOL_VEC4,
      GL_FLOAT_MAT2,   GL_FLOAT_MAT3,        GL_FLOAT_MAT4,        GL_FLOAT_MAT2x3,
      GL_FLOAT_MAT2x4, GL_FLOAT_MAT3x2,      GL_FLOAT_MAT3x4,      GL_FLOAT_MAT4x2,
      GL_FLOAT_MAT4x3};
  for (const GLenum gl : values) {
    GlslType t = describe_type(gl);
    if (t.name == name) return t;
  }
  // GLSL's square matrices have two spellings.
  if (name == "mat2x2") return describe_type(GL_FLOAT_MAT2);
  if (name == "mat3x3") return describe_type(GL_FLOAT_MAT3);
  if (name == "mat4x4") return describe_type(GL_FLOAT_MAT4);
  GlslType unknown;
  unknown.name = std::string(name);
  return unknown;
}

}  // namespace gpgpu::detail
