// gpgpu.js's object: one Context (a WebGL2 context on a canvas of its own) with the gpgpu.js
// facade; Buffers, Textures, fragment kernels, matmul plans and models are made from it.
#pragma once

#include <map>
#include <string>

#include <gpgpu/context.hpp>
#include <gpgpu/gpgpu_js.hpp>
#include <gpgpu/texture.hpp>

namespace gpgpu::web {

struct JsGPGPU {
  explicit JsGPGPU(const ContextOptions& options) : context(options), facade(context) {}
  Context context;
  js::GPGPU facade;
  std::map<std::string, std::map<std::string, Texture>> textures;  // by id, then argument
};

}  // namespace gpgpu::web
