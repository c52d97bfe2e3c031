// gpgpu/element_type.hpp — the host element types gpgpu moves to and from the GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace gpgpu {

// The three 32-bit element types GLSL ES storage, attributes and textures hold exactly.
// Vectors and matrices travel as flat arrays of these (a vec3 array of n is 3n floats).
enum class ElementType { Float32, Int32, Uint32 };

// "float32", "int32" or "uint32".
constexpr std::string_view to_string(ElementType type) {
  switch (type) {
    case ElementType::Float32: return "float32";
    case ElementType::Int32: return "int32";
    case ElementType::Uint32: return "uint32";
  }
  return "?";
}

// The GLSL scalar a host element type corresponds to.
constexpr std::string_view glsl_scalar_name(ElementType type) {
  switch (type) {
    case ElementType::Float32: return "float";
    case ElementType::Int32: return "int";
    case ElementType::Uint32: return "uint";
  }
  return "?";
}

// True for the C++ types of the element types: float, std::int32_t, std::uint32_t.
template <class T>
inline constexpr bool is_element_v =
    std::is_same_v<std::remove_cv_t<T>, float> || std::is_same_v<std::remove_cv_t<T>, std::int32_t> ||
    std::is_same_v<std::remove_cv_t<T>, std::uint32_t>;

// The ElementType of the C++ type T (a compile error for other types).
template <class T>
constexpr ElementType element_type_of() {
  static_assert(is_element_v<T>, "gpgpu moves float, int32_t and uint32_t elements");
  if constexpr (std::is_same_v<std::remove_cv_t<T>, float>) {
    return ElementType::Float32;
  } else if constexpr (std::is_same_v<std::remove_cv_t<T>, std::int32_t>) {
    return ElementType::Int32;
  } else {
    return ElementType::Uint32;
  }
}

constexpr std::size_t element_size = 4;  // every ElementType is 32 bits

}  // namespace gpgpu
