// gpgpu.js's object (CreateGPGPU): a Context with the gpgpu::js facade, and the textures of
// makeTextureInfo arguments, kept per kernel id until clear(id) as gpgpu.js keeps them.
#include <emscripten/emscripten.h>

#include <map>
#include <string>

#include <gpgpu/gpgpu.hpp>

#include "js_args.hpp"
#include "js_describe.hpp"
#include "js_errors.hpp"
#include "js_gpgpu.hpp"

namespace gpgpu::web {

namespace {

// The texture for argument `name` of kernel `id`, holding `data` now: the one kept from an
// earlier compute when its type and shape still fit, else a new one.
Texture& texture_info(JsGPGPU& g, const std::string& id, const std::string& name,
                      const std::string& type, const std::vector<std::size_t>& shape,
                      JsType element, void* data, std::size_t count) {
  const TexelType texel = texel_type_from_name(type);
  auto& kept = g.textures[id];
  auto it = kept.find(name);
  if (it == kept.end() || it->second.texel_type() != texel || it->second.shape() != shape) {
    Texture made(g.context, texel, shape);
    it = kept.insert_or_assign(name, std::move(made)).first;
  }
  visit_array(element, data, count, [&](auto span) {
    using T = typename decltype(span)::value_type;
    it->second.upload(std::span<const T>(span.data(), span.size()));
  });
  return it->second;
}

}  // namespace

}  // namespace gpgpu::web

using gpgpu::web::guarded;
using gpgpu::web::guarded_call;
using gpgpu::web::JsArgs;
using gpgpu::web::JsGPGPU;

extern "C" {

// A new Context (ContextOptions::device `device`) with the gpgpu.js facade.
EMSCRIPTEN_KEEPALIVE JsGPGPU* gpgpu_new(const char* device) {
  return guarded<JsGPGPU*>(nullptr, [&] {
    gpgpu::ContextOptions options;
    options.device = device;
    return new JsGPGPU(options);
  });
}

EMSCRIPTEN_KEEPALIVE void gpgpu_free(JsGPGPU* g) {
  delete g;
}

EMSCRIPTEN_KEEPALIVE const char* gpgpu_info_json(JsGPGPU* g) {
  return guarded<const char*>(
      nullptr, [&] { return gpgpu::web::handed_out(gpgpu::web::info_json(g->context)); });
}

// The variables of the kernel of `id` (compiled from `source` on first use), as JSON.
EMSCRIPTEN_KEEPALIVE const char* gpgpu_kernel_variables(JsGPGPU* g, const char* id,
                                                        const char* source) {
  return guarded<const char*>(nullptr, [&] {
    return gpgpu::web::handed_out(
        gpgpu::web::variables_json(g->facade.kernel(id, source).variables()));
  });
}

// makeTextureInfo's texture for argument `name` of kernel `id`, filled with `data`.
EMSCRIPTEN_KEEPALIVE gpgpu::Texture* gpgpu_texture_info(JsGPGPU* g, const char* id,
                                                        const char* name, const char* type,
                                                        const std::int32_t* shape, int dims,
                                                        int element, void* data,
                                                        std::size_t count) {
  return guarded<gpgpu::Texture*>(nullptr, [&] {
    return &gpgpu::web::texture_info(*g, id, name, type, gpgpu::web::texture_shape(shape, dims),
                                     gpgpu::web::checked_type(element), data, count);
  });
}

EMSCRIPTEN_KEEPALIVE int gpgpu_compute(JsGPGPU* g, const char* id, const char* source,
                                       const JsArgs* args) {
  return guarded_call([&] { g->facade.compute({id, source, args->args}); });
}

// 1 when `id` named a kernel, 0 when not, -1 on failure.
EMSCRIPTEN_KEEPALIVE int gpgpu_clear(JsGPGPU* g, const char* id) {
  return guarded(-1, [&] {
    g->textures.erase(id);
    return g->facade.clear(id) ? 1 : 0;
  });
}

}  // extern "C"
