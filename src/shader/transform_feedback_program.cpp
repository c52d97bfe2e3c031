#include "shader/transform_feedback_program.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "shader/glsl_source.hpp"

namespace gpgpu::detail {

namespace {

// The fragment stage OpenGL ES requires in a non-separable program; rasterisation is
// discarded, so it never runs.
constexpr std::string_view empty_fragment_shader = "void main() {}\n";

GLenum choose_capture_mode(const std::vector<StageVariable>& outputs, const DeviceInfo& info,
                           const std::string& label) {
  bool fits_separately =
      static_cast<std::int64_t>(outputs.size()) <= info.max_transform_feedback_separate_attribs;
  std::int64_t total = 0;
  for (const auto& v : outputs) {
    total += v.type.components();
    if (v.type.components() > info.max_transform_feedback_separate_components) {
      fits_separately = false;
    }
  }
  if (fits_separately) return GL_SEPARATE_ATTRIBS;
  if (total > info.max_transform_feedback_interleaved_components) {
    std::string list;
    for (const auto& v : outputs) {
      list += fmt::format("{}{} {} ({})", list.empty() ? "" : ", ", v.type.name, v.name,
                          v.type.components());
    }
    throw LimitError(fmt::format(
        "{}: the outputs have {} components per element ({}), more than the device captures "
        "(GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS = {}); split the kernel in two",
        label, total, list, info.max_transform_feedback_interleaved_components));
  }
  return GL_INTERLEAVED_ATTRIBS;
}

}  // namespace

std::shared_ptr<Program> transform_feedback_program(ContextState& state, const ShaderStage& vertex,
                                                    const std::string& label) {
  state.ensure_current();
  const std::string key = "transform-feedback\n" + vertex.source;
  if (auto cached = state.programs.find(key)) return cached;

  // The vertex shader alone, separable: its outputs stay active although nothing reads them.
  // (From the disk cache too, where it was kept: a later process then compiles nothing.)
  LinkOptions separable;
  separable.separable = true;
  const std::vector<StageVariable> outputs =
      build_program(state, {vertex}, separable, label)->interface().outputs;
  if (outputs.empty()) {
    throw UnsupportedError(fmt::format(
        "{}: the vertex shader declares no `out` variables, so there is nothing to capture; "
        "declare the results as `out` (integers as `flat out`)",
        label));
  }
  for (const auto& v : outputs) {
    if (v.array_size > 1) {
      throw UnsupportedError(fmt::format(
          "{}: output {} {}[{}] is an array; transform-feedback kernels capture scalars, vectors "
          "and matrices — declare one `out` per value",
          label, v.type.name, v.name, v.array_size));
    }
    if (!v.type.known) {
      throw UnsupportedError(fmt::format("{}: output {} has a type gpgpu cannot capture ({})",
                                         label, v.name, v.type.name));
    }
  }
  LinkOptions options;
  options.transform_feedback_mode = choose_capture_mode(outputs, state.info, label);
  for (const auto& v : outputs) options.transform_feedback_varyings.push_back(v.name);
  const ShaderStage fragment{
      GL_FRAGMENT_SHADER,
      complete_source(empty_fragment_shader, GL_FRAGMENT_SHADER, state.info, {}, ""),
      std::string(empty_fragment_shader)};
  return cached_program(state, key, {vertex, fragment}, options, label);
}

CapturePlan read_capture_plan(GLuint program) {
  CapturePlan plan;
  GLint mode = 0;
  GL(glGetProgramiv(program, GL_TRANSFORM_FEEDBACK_BUFFER_MODE, &mode));
  plan.separate = mode == GL_SEPARATE_ATTRIBS;
  GLint count = 0;
  GL(glGetProgramInterfaceiv(program, GL_TRANSFORM_FEEDBACK_VARYING, GL_ACTIVE_RESOURCES, &count));
  for (GLuint i = 0; i < static_cast<GLuint>(count); ++i) {
    const GLenum props[] = {GL_NAME_LENGTH, GL_TYPE, GL_ARRAY_SIZE};
    GLint values[3] = {0, 0, 0};
    GL(glGetProgramResourceiv(program, GL_TRANSFORM_FEEDBACK_VARYING, i, 3, props, 3, nullptr,
                              values));
    std::string name(static_cast<std::size_t>(values[0] > 0 ? values[0] : 1), '\0');
    GLsizei written = 0;
    GL(glGetProgramResourceName(program, GL_TRANSFORM_FEEDBACK_VARYING, i,
                                static_cast<GLsizei>(name.size()), &written, name.data()));
    name.resize(static_cast<std::size_t>(written));
    CapturedOutput out;
    out.variable.name = name;
    out.variable.type = describe_type(static_cast<GLenum>(values[1]));
    out.variable.array_size = values[2];
    out.components = out.variable.type.components();
    out.buffer = plan.separate ? static_cast<int>(i) : 0;
    out.offset_values = plan.separate ? 0 : plan.record_values;
    plan.record_values += static_cast<std::size_t>(out.components);
    plan.outputs.push_back(out);
  }
  return plan;
}

}  // namespace gpgpu::detail
