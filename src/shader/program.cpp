#include "shader/program.hpp"

#include <fmt/format.h>

#include "shader/glsl_source.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::detail {

namespace {

// Deletes a shader object when it goes out of scope, also when compilation throws.
struct ShaderHandle {
  GLuint id = 0;
  ~ShaderHandle() {
    if (id != 0) glDeleteShader(id);
  }
};

std::string shader_log(GLuint shader) {
  GLint length = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<std::size_t>(length > 0 ? length : 0), '\0');
  if (length > 0) glGetShaderInfoLog(shader, length, nullptr, log.data());
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

std::string program_log(GLuint program) {
  GLint length = 0;
  glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<std::size_t>(length > 0 ? length : 0), '\0');
  if (length > 0) glGetProgramInfoLog(program, length, nullptr, log.data());
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

// gpgpu binds uniforms one by one (glUniform*), never uniform buffers: a kernel whose
// uniform block stayed unbound would read zeros and run without a word.
void reject_uniform_blocks(const ProgramInterface& interface, const std::string& label) {
  if (interface.uniform_blocks.empty()) return;
  throw UnsupportedError(fmt::format(
      "{}: uniform block{} {} cannot be bound by gpgpu (it sets uniforms one by one, not "
      "uniform buffers), so the kernel would read zeros; declare the members as plain "
      "uniforms (`uniform float scale;`) or put them in a storage block and bind a Buffer",
      label, interface.uniform_blocks.size() > 1 ? "s" : "",
      fmt::join(interface.uniform_blocks, ", ")));
}

}  // namespace

Program::Program(const std::vector<ShaderStage>& stages, const LinkOptions& options,
                 std::string label, std::weak_ptr<ContextState> owner)
    : owner_(std::move(owner)), label_(std::move(label)) {
  std::vector<ShaderHandle> shaders(stages.size());
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const auto& stage = stages[i];
    shaders[i].id = GL(glCreateShader(stage.type));
    const char* text = stage.source.c_str();
    GL(glShaderSource(shaders[i].id, 1, &text, nullptr));
    GL(glCompileShader(shaders[i].id));
    GLint ok = GL_FALSE;
    GL(glGetShaderiv(shaders[i].id, GL_COMPILE_STATUS, &ok));
    if (ok != GL_TRUE) {
      const std::string log = shader_log(shaders[i].id);
      throw CompileError(fmt::format("{} shader of {} failed to compile:\n{}",
                                     stage_name(stage.type), label_,
                                     annotate_log(log, stage.user_source)),
                         log);
    }
  }
  id_ = GL(glCreateProgram());
  try {
    for (const auto& shader : shaders) GL(glAttachShader(id_, shader.id));
    if (options.separable) GL(glProgramParameteri(id_, GL_PROGRAM_SEPARABLE, GL_TRUE));
    if (!options.transform_feedback_varyings.empty()) {
      std::vector<const char*> names;
      for (const auto& n : options.transform_feedback_varyings) names.push_back(n.c_str());
      GL(glTransformFeedbackVaryings(id_, static_cast<GLsizei>(names.size()), names.data(),
                                     options.transform_feedback_mode));
    }
    GL(glLinkProgram(id_));
    GLint ok = GL_FALSE;
    GL(glGetProgramiv(id_, GL_LINK_STATUS, &ok));
    if (ok != GL_TRUE) {
      const std::string log = program_log(id_);
      std::string sources;
      for (const auto& stage : stages) {
        sources += fmt::format("\n{} shader:\n{}", stage_name(stage.type),
                               annotate_log("", stage.user_source));
      }
      throw CompileError(
          fmt::format("{} failed to link:\n{}{}", label_, log, sources), log);
    }
    for (const auto& shader : shaders) GL(glDetachShader(id_, shader.id));
    const bool is_compute = stages.size() == 1 && stages[0].type == GL_COMPUTE_SHADER;
    const auto context = owner_.lock();
    interface_ = context && !context->platform.gles31 ? introspect_es30(id_, stages)
                                                      : introspect(id_, is_compute);
    reject_uniform_blocks(interface_, label_);
  } catch (...) {
    glDeleteProgram(id_);
    glGetError();
    id_ = 0;
    throw;
  }
}

Program::~Program() {
  if (id_ == 0) return;
  // A kernel can outlive its context's cache (Context::release, clear_program_cache) and be
  // destroyed while another context is current on this thread. Delete only in the owner:
  // when it is gone or released, its names went with it; when it is current on another
  // thread, leaking the program is the only safe choice.
  const auto owner = owner_.lock();
  if (!owner || !owner->try_make_current()) return;
  glDeleteProgram(id_);
  glGetError();  // a destructor must not throw; a failed delete leaves nothing to undo
}

std::shared_ptr<Program> cached_program(ContextState& state, const std::string& key,
                                        const std::vector<ShaderStage>& stages,
                                        const LinkOptions& options, const std::string& label) {
  state.ensure_current();
  if (auto cached = state.programs.find(key)) return cached;
  auto program = std::make_shared<Program>(stages, options, label, state.weak_from_this());
  state.programs.insert(key, program);
  return program;
}

}  // namespace gpgpu::detail
