#include "gpgpu/gpgpu_js.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::js {

GPGPU::GPGPU(const Context& context) : context_(&context) {}

void GPGPU::compute(const ComputeParam& param) {
  if (param.id.empty()) throw ArgumentError("gpgpu.compute: the parameter needs an id");
  auto it = kernels_.find(param.id);
  if (it == kernels_.end()) {
    TransformFeedbackKernel kernel(*context_, param.vertex_shader, {}, param.id);
    it = kernels_.emplace(param.id, Entry{param.vertex_shader, std::move(kernel)}).first;
  } else if (it->second.source != param.vertex_shader) {
    throw ArgumentError(fmt::format(
        "gpgpu.compute: id '{}' already names a program with a different vertex shader; call "
        "clear(\"{}\") first or use another id",
        param.id, param.id));
  }
  it->second.kernel.run(param.args);
}

bool GPGPU::clear(const std::string& id) {
  return kernels_.erase(id) > 0;
}

}  // namespace gpgpu::js
