// gpgpu/kernel_variable.hpp — what introspection says about one of a kernel's variables.
#pragma once

#include <cstdint>
#include <string>

#include "gpgpu/element_type.hpp"

namespace gpgpu {

struct KernelVariable {
  enum class Kind { StorageBuffer, Uniform, Sampler, Image, Input, Output };
  std::string name;       // the name to bind: block name, member name, uniform or in/out name
  std::string alias;      // a storage block's member name ("a" in buffer A { float a[]; })
  Kind kind = Kind::Uniform;
  std::string glsl_type;  // "vec3", "mat4", "usampler2D"
  ElementType element = ElementType::Float32;
  int components = 1;             // per element: 3 for vec3, 16 for mat4
  std::int64_t array_size = 1;    // 0 for a runtime-sized storage array
  bool host_bindable = true;      // false for storage blocks that only take a Buffer
};

}  // namespace gpgpu
