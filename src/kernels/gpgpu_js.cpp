#include "gpgpu/gpgpu_js.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::js {

GPGPU::GPGPU(const Context& context) : context_(&context) {}

GPGPU::Entry& GPGPU::entry(const std::string& id, const std::string& vertex_shader) {
  if (id.empty()) throw ArgumentError("gpgpu.compute: the parameter needs an id");
  auto it = kernels_.find(id);
  if (it == kernels_.end()) {
    TransformFeedbackKernel kernel(*context_, vertex_shader, {}, id);
    it = kernels_.emplace(id, Entry{vertex_shader, std::move(kernel)}).first;
  } else if (it->second.source != vertex_shader) {
    throw ArgumentError(fmt::format(
        "gpgpu.compute: id '{}' already names a program with a different vertex shader; call "
        "clear(\"{}\") first or use another id",
        id, id));
  }
  return it->second;
}

const TransformFeedbackKernel& GPGPU::kernel(const std::string& id,
                                             const std::string& vertex_shader) {
  return entry(id, vertex_shader).kernel;
}

void GPGPU::compute(const ComputeParam& param) {
  entry(param.id, param.vertex_shader).kernel.run(param.args);
}

bool GPGPU::clear(const std::string& id) {
  return kernels_.erase(id) > 0;
}

}  // namespace gpgpu::js
