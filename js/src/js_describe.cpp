#include "js_describe.hpp"

#include <nlohmann/json.hpp>

#include <gpgpu/element_type.hpp>

namespace gpgpu::web {


std::string info_json(const Context& context) {
  const DeviceInfo& i = context.info();
  nlohmann::json j = {
      {"platform", "WebGL2"},
      {"vendor", i.vendor},
      {"renderer", i.renderer},
      {"version", i.version},
      {"glslVersion", i.glsl_version},
      {"isSoftware", i.is_software},
      {"maxTextureSize", i.max_texture_size},
      {"maxVertexAttribs", i.max_vertex_attribs},
      {"maxTransformFeedbackSeparateAttribs", i.max_transform_feedback_separate_attribs},
      {"maxTransformFeedbackInterleavedComponents",
       i.max_transform_feedback_interleaved_components},
      {"maxDrawBuffers", i.max_draw_buffers},
      {"maxVertexTextureImageUnits", i.max_vertex_texture_image_units},
      {"colorBufferFloat", i.has_color_buffer_float()},
      {"extensions", i.extensions},
      {"report", i.to_string()},
  };
  return j.dump();
}

std::string variables_json(const std::vector<KernelVariable>& variables) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& v : variables) {
    list.push_back({{"kind", std::string(to_string(v.kind))},
                    {"name", v.name},
                    {"glslType", v.glsl_type},
                    {"element", std::string(to_string(v.element))},
                    {"components", v.components},
                    {"arraySize", v.array_size}});
  }
  return list.dump();
}

}  // namespace gpgpu::web
