// gpgpu.Texture: a 2-D or 3-D texture (or a wrapped 1-D array) for samplers, images and
// render targets, with the Context that made it.
#pragma once

#include <memory>

#include "gpgpu/context.hpp"
#include "gpgpu/texture.hpp"
#include "py_context.hpp"

namespace gpgpu::python {

struct PyTexture {
  PyTexture() = default;
  PyTexture(PyTexture&&) = default;
  PyTexture& operator=(PyTexture&&) = default;
  ~PyTexture() {
    if (context) context->dispose(std::move(texture));
  }

  std::shared_ptr<PyContext> context;
  Texture texture;
};

}  // namespace gpgpu::python
