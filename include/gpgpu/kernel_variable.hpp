// gpgpu/kernel_variable.hpp — what introspection says about one of a kernel's variables.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gpgpu/element_type.hpp"

namespace gpgpu {

// One variable of a compiled kernel, as program introspection reports it: what an Arg binds to.
struct KernelVariable {
  // What kind of GLSL variable it is.
  enum class Kind { StorageBuffer, Uniform, Sampler, Image, Input, Output };
  std::string name;       // the name to bind: block name, member name, uniform or in/out name
  std::string alias;      // a storage block's member name ("a" in buffer A { float a[]; })
  Kind kind = Kind::Uniform;  // (above)
  std::string glsl_type;  // "vec3", "mat4", "usampler2D"
  ElementType element = ElementType::Float32;  // float32, int32 or uint32
  int components = 1;             // per element: 3 for vec3, 16 for mat4
  std::int64_t array_size = 1;    // 0 for a runtime-sized storage array
  bool host_bindable = true;      // false for storage blocks that only take a Buffer
};

// "buffer", "uniform", "sampler", "image", "in", "out".
constexpr std::string_view to_string(KernelVariable::Kind kind) {
  switch (kind) {
    case KernelVariable::Kind::StorageBuffer: return "buffer";
    case KernelVariable::Kind::Uniform: return "uniform";
    case KernelVariable::Kind::Sampler: return "sampler";
    case KernelVariable::Kind::Image: return "image";
    case KernelVariable::Kind::Input: return "in";
    case KernelVariable::Kind::Output: return "out";
  }
  return "?";
}

}  // namespace gpgpu
