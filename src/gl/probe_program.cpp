#include "gl/probe_program.hpp"

#include "gl/gl_buffer.hpp"
#include "gl/gl_name.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::detail {

namespace {

struct ScopedShader {
  GLuint id = 0;
  ~ScopedShader() {
    if (id != 0) glDeleteShader(id);
  }
};

GLuint compile_and_link(const char* source) {
  ScopedShader shader{glCreateShader(GL_COMPUTE_SHADER)};
  if (shader.id == 0) return 0;
  glShaderSource(shader.id, 1, &source, nullptr);
  glCompileShader(shader.id);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader.id, GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) return 0;
  const GLuint program = glCreateProgram();
  if (program == 0) return 0;
  glAttachShader(program, shader.id);
  glLinkProgram(program);
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    glDeleteProgram(program);
    return 0;
  }
  return program;
}

}  // namespace

ProbeProgram::ProbeProgram(const char* source) : program_(compile_and_link(source)) {
  glGetError();  // a probe that cannot be built reports nothing; it leaves no error behind
}

ProbeProgram::~ProbeProgram() {
  if (program_ != 0) glDeleteProgram(program_);
}

std::vector<std::uint32_t> run_probe(const ProbeProgram& program, ProbeUniforms uniforms,
                                     std::size_t words, std::uint32_t groups, std::uint32_t fill) {
  if (program.id() == 0) return {};
  std::vector<std::uint32_t> values(words, fill);
  try {
    // Deleted in the current context (no ContextState exists yet while probing).
    const GlBuffer buffer(nullptr, create_gl_buffer(words * 4, values.data(), GL_DYNAMIC_COPY));
    GL(glUseProgram(program.id()));
    // Not a structured binding: GL() wraps the call in a lambda, and clang (Emscripten's)
    // refuses to capture a binding in C++20.
    for (const auto& uniform : uniforms) {
      const auto location = glGetUniformLocation(program.id(), uniform.first);
      GL(glUniform1ui(location, uniform.second));
    }
    GL(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer.id()));
    GL(glDispatchCompute(groups, 1, 1));
    GL(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0));
    GL(glUseProgram(0));
    read_gl_buffer(buffer.id(), 0, words * 4, values.data());
  } catch (const Error&) {
    glUseProgram(0);
    glGetError();
    return {};
  }
  return values;
}

}  // namespace gpgpu::detail
