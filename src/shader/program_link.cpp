#include "shader/program_link.hpp"

#include <fmt/format.h>

#include <utility>

#include "gpgpu/error.hpp"
#include "shader/glsl_source.hpp"

namespace gpgpu::detail {

namespace {

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

}  // namespace

PendingLink::~PendingLink() {
  release();
}

PendingLink::PendingLink(PendingLink&& other) noexcept
    : program_(std::exchange(other.program_, 0)), shaders_(std::move(other.shaders_)) {
  other.shaders_.clear();
}

PendingLink& PendingLink::operator=(PendingLink&& other) noexcept {
  if (this != &other) {
    release();
    program_ = std::exchange(other.program_, 0);
    shaders_ = std::move(other.shaders_);
    other.shaders_.clear();
  }
  return *this;
}

void PendingLink::release() noexcept {
  for (const GLuint shader : shaders_) glDeleteShader(shader);
  shaders_.clear();
  if (program_ != 0) glDeleteProgram(program_);
  program_ = 0;
  glGetError();  // nothing to undo when a delete fails
}

PendingLink start_link(const std::vector<ShaderStage>& stages, const LinkOptions& options,
                       bool retrievable) {
  PendingLink pending;
  for (const auto& stage : stages) {
    pending.shaders_.push_back(GL(glCreateShader(stage.type)));
    const char* text = stage.source.c_str();
    GL(glShaderSource(pending.shaders_.back(), 1, &text, nullptr));
    GL(glCompileShader(pending.shaders_.back()));
  }
  pending.program_ = GL(glCreateProgram());
  for (const GLuint shader : pending.shaders_) GL(glAttachShader(pending.program_, shader));
  if (options.separable) GL(glProgramParameteri(pending.program_, GL_PROGRAM_SEPARABLE, GL_TRUE));
  if (retrievable) {
    GL(glProgramParameteri(pending.program_, GL_PROGRAM_BINARY_RETRIEVABLE_HINT, GL_TRUE));
  }
  if (!options.transform_feedback_varyings.empty()) {
    std::vector<const char*> names;
    for (const auto& n : options.transform_feedback_varyings) names.push_back(n.c_str());
    GL(glTransformFeedbackVaryings(pending.program_, static_cast<GLsizei>(names.size()),
                                   names.data(), options.transform_feedback_mode));
  }
  GL(glLinkProgram(pending.program_));
  return pending;
}

bool link_finished(const PendingLink& pending) {
  GLint done = GL_FALSE;
  GL(glGetProgramiv(pending.program_, GL_COMPLETION_STATUS_KHR, &done));
  return done == GL_TRUE;
}

GLuint finish_link(PendingLink& pending, const std::vector<ShaderStage>& stages,
                   const std::string& label) {
  for (std::size_t i = 0; i < stages.size(); ++i) {
    GLint ok = GL_FALSE;
    GL(glGetShaderiv(pending.shaders_[i], GL_COMPILE_STATUS, &ok));
    if (ok != GL_TRUE) {
      const std::string log = shader_log(pending.shaders_[i]);
      throw CompileError(
          fmt::format("{} shader of {} failed to compile:\n{}", stage_name(stages[i].type), label,
                      annotate_log(log, stages[i].user_source)),
          log);
    }
  }
  GLint ok = GL_FALSE;
  GL(glGetProgramiv(pending.program_, GL_LINK_STATUS, &ok));
  if (ok != GL_TRUE) {
    const std::string log = program_log(pending.program_);
    std::string sources;
    for (const auto& stage : stages) {
      sources += fmt::format("\n{} shader:\n{}", stage_name(stage.type),
                             annotate_log("", stage.user_source));
    }
    throw CompileError(fmt::format("{} failed to link:\n{}{}", label, log, sources), log);
  }
  for (const GLuint shader : pending.shaders_) GL(glDetachShader(pending.program_, shader));
  return std::exchange(pending.program_, 0);  // the shaders go with `pending`
}

}  // namespace gpgpu::detail
