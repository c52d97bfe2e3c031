#include "js_args.hpp"

#include <emscripten/emscripten.h>

#include <cstring>
#include <span>
#include <string>

#include <fmt/format.h>

#include <gpgpu/buffer.hpp>
#include <gpgpu/error.hpp>
#include <gpgpu/texture.hpp>

#include "js_errors.hpp"

namespace gpgpu::web {

JsType checked_type(int type) {
  if (type < 0 || type > 2) throw ArgumentError(fmt::format("unknown element type code {}", type));
  return static_cast<JsType>(type);
}

std::vector<std::size_t> texture_shape(const std::int32_t* shape, int dims) {
  std::vector<std::size_t> out;
  for (int i = 0; i < dims; ++i) {
    if (shape[i] <= 0) {
      throw ArgumentError(
          fmt::format("a texture's shape must be positive; entry {} is {}", i, shape[i]));
    }
    out.push_back(static_cast<std::size_t>(shape[i]));
  }
  return out;
}

namespace {

template <class T>
Arg host_array(void* data, std::size_t count, Access access) {
  auto* values = static_cast<T*>(data);
  if (access == Access::Read) return Arg(std::span<const T>(values, count));
  return Arg(std::span<T>(values, count)).with_access(access);
}

Arg array_arg(JsType type, void* data, std::size_t count, Access access) {
  return visit_array(type, data, count, [access](auto span) {
    using T = typename decltype(span)::value_type;
    return host_array<T>(span.data(), span.size(), access);
  });
}

Access checked_access(int access) {
  if (access < 0 || access > 2) throw ArgumentError(fmt::format("unknown access code {}", access));
  return static_cast<Access>(access);
}

}  // namespace

}  // namespace gpgpu::web

using gpgpu::web::guarded;
using gpgpu::web::guarded_call;
using gpgpu::web::JsArgs;

extern "C" {

EMSCRIPTEN_KEEPALIVE JsArgs* gpgpu_args_new() {
  return guarded<JsArgs*>(nullptr, [] { return new JsArgs; });
}

EMSCRIPTEN_KEEPALIVE void gpgpu_args_free(JsArgs* args) {
  delete args;
}

// A host array in the module's memory: read (0), read and written back (1) or written (2);
// row_major transposes matrix elements.
EMSCRIPTEN_KEEPALIVE int gpgpu_args_array(JsArgs* args, const char* name, int type, void* data,
                                          std::size_t count, int access, int row_major) {
  return guarded_call([&] {
    auto arg = gpgpu::web::array_arg(gpgpu::web::checked_type(type), data, count,
                                     gpgpu::web::checked_access(access));
    if (row_major != 0) arg = gpgpu::row_major(arg);
    args->args.emplace_back(name, arg);
  });
}

// A scalar, or a short vector or matrix, copied now (a uniform).
EMSCRIPTEN_KEEPALIVE int gpgpu_args_value(JsArgs* args, const char* name, int type,
                                          const void* data, std::size_t count, int row_major) {
  return guarded_call([&] {
    const auto t = gpgpu::web::checked_type(type);
    if (count == 1) {
      std::uint32_t bits = 0;
      std::memcpy(&bits, data, 4);
      if (t == gpgpu::web::JsType::Float32) {
        float v = 0;
        std::memcpy(&v, &bits, 4);
        args->args.emplace_back(name, gpgpu::Arg(v));
      } else if (t == gpgpu::web::JsType::Int32) {
        args->args.emplace_back(name, gpgpu::Arg(static_cast<std::int32_t>(bits)));
      } else {
        args->args.emplace_back(name, gpgpu::Arg(bits));
      }
      return;
    }
    auto& kept = args->values.emplace_back(count);
    std::memcpy(kept.data(), data, count * 4);
    auto arg = gpgpu::web::array_arg(t, kept.data(), count, gpgpu::Access::Read);
    if (row_major != 0) arg = gpgpu::row_major(arg);
    args->args.emplace_back(name, arg);
  });
}

EMSCRIPTEN_KEEPALIVE int gpgpu_args_buffer(JsArgs* args, const char* name,
                                           const gpgpu::Buffer* buffer) {
  return guarded_call([&] { args->args.emplace_back(name, gpgpu::Arg(*buffer)); });
}

EMSCRIPTEN_KEEPALIVE int gpgpu_args_texture(JsArgs* args, const char* name,
                                            const gpgpu::Texture* texture) {
  return guarded_call([&] { args->args.emplace_back(name, gpgpu::Arg(*texture)); });
}

}  // extern "C"
