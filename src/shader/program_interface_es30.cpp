// Introspection where OpenGL ES 3.1's program-interface queries are missing (WebGL2, OpenGL
// ES 3.0): uniforms and vertex attributes through glGetActiveUniform / glGetActiveAttrib,
// the last stage's outputs from its source (glsl_outputs.hpp) with their locations from
// glGetFragDataLocation. There are no storage blocks to find.
#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "shader/glsl_outputs.hpp"
#include "shader/program.hpp"
#include "shader/program_interface.hpp"

namespace gpgpu::detail {

namespace {

GLint program_integer(GLuint program, GLenum what) {
  GLint value = 0;
  GL(glGetProgramiv(program, what, &value));
  return value;
}

std::string strip_array_suffix(std::string name) {
  if (name.size() > 3 && name.compare(name.size() - 3, 3, "[0]") == 0) name.resize(name.size() - 3);
  return name;
}

// One active uniform or attribute: its name (as GL reports it), array size and type.
struct Active {
  std::string name;
  GLint size = 0;
  GLenum type = 0;
};

template <class Query>
Active active(GLuint program, GLuint index, GLint max_length, Query query) {
  Active a;
  std::string name(static_cast<std::size_t>(std::max(max_length, 1)), '\0');
  GLsizei written = 0;
  GL(query(program, index, static_cast<GLsizei>(name.size()), &written, &a.size, &a.type,
           name.data()));
  name.resize(static_cast<std::size_t>(written));
  a.name = std::move(name);
  return a;
}

std::vector<UniformVariable> uniforms(GLuint program) {
  std::vector<UniformVariable> list;
  const auto count = static_cast<GLuint>(program_integer(program, GL_ACTIVE_UNIFORMS));
  const GLint max_length = program_integer(program, GL_ACTIVE_UNIFORM_MAX_LENGTH);
  for (GLuint i = 0; i < count; ++i) {
    GLint block = -1;
    GL(glGetActiveUniformsiv(program, 1, &i, GL_UNIFORM_BLOCK_INDEX, &block));
    if (block != -1) continue;  // a member of a uniform block, bound as a whole block
    const Active a = active(program, i, max_length, glGetActiveUniform);
    UniformVariable u;
    u.is_array = a.name.size() > 3 && a.name.compare(a.name.size() - 3, 3, "[0]") == 0;
    u.name = strip_array_suffix(a.name);
    u.type = describe_type(a.type);
    u.array_size = a.size;
    u.location = GL(glGetUniformLocation(program, a.name.c_str()));
    list.push_back(u);
  }
  return list;
}

std::vector<std::string> uniform_blocks(GLuint program) {
  std::vector<std::string> names;
  const auto count = static_cast<GLuint>(program_integer(program, GL_ACTIVE_UNIFORM_BLOCKS));
  const GLint max_length = program_integer(program, GL_ACTIVE_UNIFORM_BLOCK_MAX_NAME_LENGTH);
  for (GLuint i = 0; i < count; ++i) {
    std::string name(static_cast<std::size_t>(std::max(max_length, 1)), '\0');
    GLsizei written = 0;
    GL(glGetActiveUniformBlockName(program, i, static_cast<GLsizei>(name.size()), &written,
                                   name.data()));
    name.resize(static_cast<std::size_t>(written));
    names.push_back(name);
  }
  return names;
}

std::vector<StageVariable> attributes(GLuint program) {
  std::vector<StageVariable> list;
  const auto count = static_cast<GLuint>(program_integer(program, GL_ACTIVE_ATTRIBUTES));
  const GLint max_length = program_integer(program, GL_ACTIVE_ATTRIBUTE_MAX_LENGTH);
  for (GLuint i = 0; i < count; ++i) {
    const Active a = active(program, i, max_length, glGetActiveAttrib);
    if (a.name.rfind("gl_", 0) == 0) continue;  // built-ins such as gl_VertexID
    StageVariable v;
    v.name = strip_array_suffix(a.name);
    v.type = describe_type(a.type);
    v.array_size = a.size;
    v.location = GL(glGetAttribLocation(program, a.name.c_str()));
    list.push_back(v);
  }
  return list;
}

}  // namespace

std::vector<StageVariable> declared_stage_outputs(GLuint program, const ShaderStage& stage) {
  std::vector<StageVariable> list;
  for (const auto& d : declared_outputs(stage.source)) {
    StageVariable v;
    v.name = d.name;
    v.type = type_named(d.type);
    v.array_size = d.array_size;
    v.location =
        stage.type == GL_FRAGMENT_SHADER ? GL(glGetFragDataLocation(program, d.name.c_str())) : -1;
    list.push_back(v);
  }
  return list;
}

ProgramInterface introspect_es30(GLuint program, const std::vector<ShaderStage>& stages) {
  ProgramInterface pi;
  pi.uniforms = uniforms(program);
  pi.uniform_blocks = uniform_blocks(program);
  pi.inputs = attributes(program);
  if (!stages.empty()) pi.outputs = declared_stage_outputs(program, stages.back());
  return pi;
}

}  // namespace gpgpu::detail
