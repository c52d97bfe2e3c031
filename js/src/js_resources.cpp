// Buffers (device arrays that chain transform-feedback kernels) and Textures (the inputs
// and outputs of fragment kernels) for gpgpu.js.
#include <emscripten/emscripten.h>

#include <gpgpu/buffer.hpp>
#include <gpgpu/error.hpp>
#include <gpgpu/texture.hpp>

#include "js_args.hpp"
#include "js_errors.hpp"
#include "js_gpgpu.hpp"

namespace gpgpu::web {
namespace {

ElementType element_of(JsType type) {
  switch (type) {
    case JsType::Int32:
      return ElementType::Int32;
    case JsType::Uint32:
      return ElementType::Uint32;
    case JsType::Float32:
      break;
  }
  return ElementType::Float32;
}

}  // namespace
}  // namespace gpgpu::web

using gpgpu::web::guarded;
using gpgpu::web::guarded_call;
using gpgpu::web::JsGPGPU;

extern "C" {

EMSCRIPTEN_KEEPALIVE gpgpu::Buffer* gpgpu_buffer_new(JsGPGPU* g, int type, std::size_t count) {
  return guarded<gpgpu::Buffer*>(nullptr, [&] {
    const auto element = gpgpu::web::element_of(gpgpu::web::checked_type(type));
    return new gpgpu::Buffer(g->context, element, count);
  });
}

EMSCRIPTEN_KEEPALIVE void gpgpu_buffer_free(gpgpu::Buffer* buffer) {
  delete buffer;
}

// `count` values of `type` from `data` into the Buffer from element `offset` on.
EMSCRIPTEN_KEEPALIVE int gpgpu_buffer_upload(gpgpu::Buffer* buffer, int type, void* data,
                                             std::size_t count, std::size_t offset) {
  return guarded_call([&] {
    gpgpu::web::visit_array(gpgpu::web::checked_type(type), data, count, [&](auto span) {
      using T = typename decltype(span)::value_type;
      buffer->upload(std::span<const T>(span.data(), span.size()), offset);
    });
  });
}

EMSCRIPTEN_KEEPALIVE int gpgpu_buffer_download(const gpgpu::Buffer* buffer, int type, void* out,
                                               std::size_t count, std::size_t offset) {
  return guarded_call([&] {
    gpgpu::web::visit_array(gpgpu::web::checked_type(type), out, count,
                            [&](auto span) { buffer->download(span, offset); });
  });
}

// A texture of `type` ("float", "vec4", "int", ...) and shape {rows, cols} or
// {depth, rows, cols}.
EMSCRIPTEN_KEEPALIVE gpgpu::Texture* gpgpu_texture_new(JsGPGPU* g, const char* type,
                                                       const std::int32_t* shape, int dims) {
  return guarded<gpgpu::Texture*>(nullptr, [&] {
    return new gpgpu::Texture(g->context, gpgpu::texel_type_from_name(type),
                              gpgpu::web::texture_shape(shape, dims));
  });
}

EMSCRIPTEN_KEEPALIVE void gpgpu_texture_free(gpgpu::Texture* texture) {
  delete texture;
}

EMSCRIPTEN_KEEPALIVE int gpgpu_texture_upload(gpgpu::Texture* texture, int type, void* data,
                                              std::size_t count) {
  return guarded_call([&] {
    gpgpu::web::visit_array(gpgpu::web::checked_type(type), data, count, [&](auto span) {
      using T = typename decltype(span)::value_type;
      texture->upload(std::span<const T>(span.data(), span.size()));
    });
  });
}

EMSCRIPTEN_KEEPALIVE int gpgpu_texture_download(const gpgpu::Texture* texture, int type, void* out,
                                                std::size_t count) {
  return guarded_call([&] {
    gpgpu::web::visit_array(gpgpu::web::checked_type(type), out, count,
                            [&](auto span) { texture->download(span); });
  });
}

// Values a download or an upload of the texture takes (texels times components).
EMSCRIPTEN_KEEPALIVE std::size_t gpgpu_texture_values(const gpgpu::Texture* texture) {
  return texture->value_count();
}

}  // extern "C"
