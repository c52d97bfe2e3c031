// Writing down a checked and planned compute dispatch (dispatch_record.hpp).
#include "kernels/dispatch_record.hpp"

#include <cstring>

#include <fmt/format.h>

#include "binding/texture_binding.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/texture.hpp"
#include "kernels/kernel_core.hpp"
#include "resources/texel_format.hpp"
#include "shader/program.hpp"

namespace gpgpu::detail {

namespace {

RecordedBlock record_block(const PlannedBlock& p, const std::string& label) {
  const Arg& v = p.arg->value;
  if (v.kind() != Arg::Kind::DeviceBuffer) {
    const char* what = v.kind() == Arg::Kind::HostMemory ? "a mapped HostBuffer" : "a host array";
    throw ArgumentError(fmt::format(
        "{}: '{}' is {}; a Sequence records Buffers only (a host array would have to be "
        "copied at every replay): upload it into a gpgpu::Buffer and record that",
        label, p.arg->name, what));
  }
  return {.name = p.arg->name,
          .buffer = v,
          .binding = static_cast<GLuint>(p.block->binding),
          .gl_name = v.buffer()->gl_name(),
          .bytes = static_cast<GLsizeiptr>(p.bytes),
          .access = p.block->access};
}

RecordedUniform values_of(const UniformVariable& u, const Arg& v) {
  RecordedUniform r;
  r.variable = &u;
  r.count = uniform_elements(u);
  r.row_major = v.layout() == MatrixLayout::RowMajor;
  const std::size_t words =
      static_cast<std::size_t>(r.count) * static_cast<std::size_t>(u.type.components());
  r.words.resize(words);
  std::memcpy(r.words.data(), v.data(), words * sizeof(std::uint32_t));
  return r;
}

RecordedUniform unit_of(const UniformVariable& u, GLuint unit) {
  RecordedUniform r;
  r.variable = &u;
  r.words = {unit};
  return r;
}

// A sampler, image or buffer-texels uniform: its texture and (samplers) its unit, numbered as
// set_uniforms numbers them.
void record_opaque(DispatchRecord& d, const UniformVariable& u, const NamedArg& arg,
                   GLuint& next_unit, GLuint program) {
  RecordedTexture t{.name = arg.name, .object = arg.value};
  if (is_buffer_sampler(u.type.gl)) {
    const Buffer& b = *arg.value.buffer();
    t.kind = RecordedTexture::Kind::BufferTexels;
    t.gl_name = b.gl_name();
    t.format = buffer_texel_format(b.element_type(), arg.value.count());
  } else {
    const Texture& texture = *arg.value.texture();
    t.gl_name = texture.gl_name();
    t.kind = u.type.is_image ? RecordedTexture::Kind::Image : RecordedTexture::Kind::Sampler;
    t.target = texture_target(texture);
    t.layered = texture.dimensions() == 3 ? GL_TRUE : GL_FALSE;
    t.format = texel_format(texture.texel_type()).internal_format;
  }
  if (t.kind == RecordedTexture::Kind::Image) {
    t.unit = image_unit(program, u);
    t.access = u.access;
  } else {
    t.unit = next_unit++;  // within the device's units: checked with the arguments
    d.uniforms.push_back(unit_of(u, t.unit));
  }
  d.textures.push_back(std::move(t));
}

}  // namespace

DispatchRecord record_dispatch(std::shared_ptr<const Program> program, const std::string& label,
                               const std::vector<PlannedBlock>& blocks,
                               const ResolvedArgs& resolved, std::array<GLuint, 3> groups) {
  DispatchRecord d;
  d.label = label;
  d.groups = groups;
  for (const auto& p : blocks) d.blocks.push_back(record_block(p, label));
  GLuint next_unit = 0;
  for (auto [uniform, arg] : resolved.uniforms) {
    if (uniform->type.is_opaque()) {
      record_opaque(d, *uniform, *arg, next_unit, program->id());
    } else {
      d.uniforms.push_back(values_of(*uniform, arg->value));
    }
  }
  d.program = std::move(program);
  return d;
}

void record_internal_uint(DispatchRecord& record, const char* name, GLuint value) {
  const auto* u = record.program->interface().find_uniform(name);
  if (u == nullptr) return;
  RecordedUniform r;
  r.variable = u;
  r.internal = true;
  r.words = {value};
  record.uniforms.push_back(std::move(r));
}

}  // namespace gpgpu::detail
