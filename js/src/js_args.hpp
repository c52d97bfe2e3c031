// Arguments assembled by gpgpu.js one by one (a JavaScript object cannot cross into C++ as a
// whole): host arrays in the module's memory, values, Buffers and Textures, by name.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include <gpgpu/arg.hpp>

namespace gpgpu::web {

// Element types as gpgpu.js numbers them (Float32Array, Int32Array, Uint32Array).
enum class JsType : int { Float32 = 0, Int32 = 1, Uint32 = 2 };

// Throws ArgumentError for a code gpgpu.js does not send.
JsType checked_type(int type);

// Calls f with `data` as a std::span of the element type `type` names.
template <class F>
decltype(auto) visit_array(JsType type, void* data, std::size_t count, F&& f) {
  switch (type) {
    case JsType::Int32:
      return f(std::span<std::int32_t>(static_cast<std::int32_t*>(data), count));
    case JsType::Uint32:
      return f(std::span<std::uint32_t>(static_cast<std::uint32_t*>(data), count));
    case JsType::Float32:
      break;
  }
  return f(std::span<float>(static_cast<float*>(data), count));
}

// A texture's shape from gpgpu.js ({rows, cols} or {depth, rows, cols}); ArgumentError for
// an entry that is not positive.
std::vector<std::size_t> texture_shape(const std::int32_t* shape, int dims);

struct JsArgs {
  Args args;
  // Values given by value (uniform vectors and matrices), kept here while the Args are used.
  std::deque<std::vector<std::uint32_t>> values;
};

}  // namespace gpgpu::web
