// Internal: what a GL type enum (GL_FLOAT_VEC3, GL_SAMPLER_2D...) means to the host.
#pragma once

#include <string>
#include <string_view>

#include "gl/gl.hpp"
#include "gpgpu/element_type.hpp"

namespace gpgpu::detail {

struct GlslType {
  GLenum gl = 0;
  std::string name;  // as written in GLSL: "vec3", "mat2x4", "usampler2D"
  ElementType element = ElementType::Float32;
  int rows = 1;     // components per column (a vec3 has 3 rows, 1 column)
  int columns = 1;  // > 1 for matrices
  bool is_bool = false;
  bool is_sampler = false;
  bool is_image = false;
  bool known = false;

  int components() const { return rows * columns; }
  bool is_matrix() const { return columns > 1; }
  bool is_opaque() const { return is_sampler || is_image; }
};

// Describes a type enum; unknown enums give known == false and a hex name.
GlslType describe_type(GLenum type);
// The scalar, vector or matrix type spelled `name` in GLSL ("vec3", "mat2x4"); known ==
// false for any other name (samplers and images are never outputs).
GlslType type_named(std::string_view name);

}  // namespace gpgpu::detail
