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
    throw DeviceLimitError(
        fmt::format("{}: the outputs have {} components per element ({}), more than the device "
                    "captures (GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS = {}{}); split "
                    "the kernel in two",
                    label, total, list, info.max_transform_feedback_interleaved_components,
                    info.limit_profile.empty() ? "" : ", profile " + info.limit_profile),
        "GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS", total,
        info.max_transform_feedback_interleaved_components);
  }
  return GL_INTERLEAVED_ATTRIBS;
}

// The vertex shader's outputs. OpenGL ES 3.1: a separable link of the vertex shader alone,
// whose outputs stay active although nothing reads them. OpenGL ES 3.0 (WebGL2) has neither
// separable programs nor output queries: the `out` declarations of the source, each checked
// when the program is linked with them as its varyings.
std::vector<StageVariable> vertex_outputs(ContextState& state, const ShaderStage& vertex,
                                          const std::string& label) {
  if (!state.platform.gles31) return declared_stage_outputs(0, vertex);
  // From the disk cache too, where it was kept: a later process then compiles nothing.
  LinkOptions separable;
  separable.separable = true;
  return build_program(state, {vertex}, separable, label)->interface().outputs;
}

}  // namespace

std::shared_ptr<Program> transform_feedback_program(ContextState& state, const ShaderStage& vertex,
                                                    const std::string& label) {
  state.ensure_current();
  const std::string key = "transform-feedback\n" + vertex.source;
  if (auto cached = state.programs.find(key)) return cached;

  const std::vector<StageVariable> outputs = vertex_outputs(state, vertex, label);
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
  // OpenGL ES 3.0's queries (WebGL2 has nothing newer), which name the varyings as linked.
  // GLSL ES names are at most 1024 characters (WebGL2 has no
  // GL_TRANSFORM_FEEDBACK_VARYING_MAX_LENGTH to ask).
  constexpr std::size_t longest_name = 1024 + 1;
  GLint count = 0;
  GL(glGetProgramiv(program, GL_TRANSFORM_FEEDBACK_VARYINGS, &count));
  for (GLuint i = 0; i < static_cast<GLuint>(count); ++i) {
    std::string name(longest_name, '\0');
    GLsizei written = 0, size = 0;
    GLenum type = 0;
    GL(glGetTransformFeedbackVarying(program, i, static_cast<GLsizei>(name.size()), &written, &size,
                                     &type, name.data()));
    name.resize(static_cast<std::size_t>(written));
    CapturedOutput out;
    out.variable.name = name;
    out.variable.type = describe_type(type);
    out.variable.array_size = size;
    out.components = out.variable.type.components();
    out.buffer = plan.separate ? static_cast<int>(i) : 0;
    out.offset_values = plan.separate ? 0 : plan.record_values;
    plan.record_values += static_cast<std::size_t>(out.components);
    plan.outputs.push_back(out);
  }
  return plan;
}

}  // namespace gpgpu::detail
