#include "shader/program_interface.hpp"

#include <fmt/format.h>

namespace gpgpu::detail {

namespace {

std::string resource_name(GLuint program, GLenum interface, GLuint index) {
  GLint length = 0;
  const GLenum prop = GL_NAME_LENGTH;
  GL(glGetProgramResourceiv(program, interface, index, 1, &prop, 1, nullptr, &length));
  std::string name(static_cast<std::size_t>(length > 0 ? length : 1), '\0');
  GLsizei written = 0;
  GL(glGetProgramResourceName(program, interface, index, static_cast<GLsizei>(name.size()),
                              &written, name.data()));
  name.resize(static_cast<std::size_t>(written));
  return name;
}

std::vector<GLint> resource_props(GLuint program, GLenum interface, GLuint index,
                                  std::initializer_list<GLenum> props) {
  std::vector<GLenum> p(props);
  std::vector<GLint> values(p.size(), 0);
  GL(glGetProgramResourceiv(program, interface, index, static_cast<GLsizei>(p.size()), p.data(),
                            static_cast<GLsizei>(values.size()), nullptr, values.data()));
  return values;
}

GLuint resource_count(GLuint program, GLenum interface) {
  GLint count = 0;
  GL(glGetProgramInterfaceiv(program, interface, GL_ACTIVE_RESOURCES, &count));
  return static_cast<GLuint>(count);
}

std::string strip_array_suffix(std::string name) {
  if (name.size() > 3 && name.compare(name.size() - 3, 3, "[0]") == 0) name.resize(name.size() - 3);
  return name;
}

std::string last_component(const std::string& name) {
  auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

std::vector<StageVariable> stage_variables(GLuint program, GLenum interface) {
  std::vector<StageVariable> vars;
  const GLuint count = resource_count(program, interface);
  for (GLuint i = 0; i < count; ++i) {
    StageVariable v;
    v.name = strip_array_suffix(resource_name(program, interface, i));
    if (v.name.rfind("gl_", 0) == 0) continue;  // built-ins such as gl_VertexID
    auto p = resource_props(program, interface, i, {GL_TYPE, GL_ARRAY_SIZE, GL_LOCATION});
    v.type = describe_type(static_cast<GLenum>(p[0]));
    v.array_size = p[1];
    v.location = p[2];
    vars.push_back(v);
  }
  return vars;
}

}  // namespace

const UniformVariable* ProgramInterface::find_uniform(const std::string& name) const {
  for (const auto& u : uniforms) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

const StorageBlock* ProgramInterface::find_block(const std::string& name) const {
  for (const auto& b : storage_blocks) {
    if (b.name == name) return &b;
  }
  for (const auto& b : storage_blocks) {
    if (!b.member_name.empty() && b.member_name == name) return &b;
  }
  return nullptr;
}

std::string ProgramInterface::describe() const {
  std::string s;
  for (const auto& b : storage_blocks) {
    if (b.single_array) {
      s += fmt::format("\n  buffer {} {{ {} {}[{}]; }}", b.name, b.element.name, b.member_name,
                       b.array_size == 0 ? "" : std::to_string(b.array_size));
    } else {
      s += fmt::format("\n  buffer {} {{ {} }} (bind a gpgpu::Buffer)", b.name,
                       fmt::join(b.members, ", "));
    }
  }
  for (const auto& u : uniforms) {
    if (u.name.rfind("gpgpu_", 0) == 0) continue;
    s += fmt::format("\n  uniform {} {}{}", u.type.name, u.name,
                     u.is_array ? fmt::format("[{}]", u.array_size) : "");
  }
  for (const auto& v : inputs) s += fmt::format("\n  in {} {}", v.type.name, v.name);
  for (const auto& v : outputs) s += fmt::format("\n  out {} {}", v.type.name, v.name);
  return s.empty() ? "\n  (the kernel has no active variables)" : s;
}

namespace {
unsigned stage_bits(GLint vertex, GLint fragment, GLint compute) {
  return (vertex != 0 ? kVertexStage : 0u) | (fragment != 0 ? kFragmentStage : 0u) |
         (compute != 0 ? kComputeStage : 0u);
}
}  // namespace

ProgramInterface introspect(GLuint program, bool is_compute) {
  ProgramInterface pi;
  const GLuint uniform_count = resource_count(program, GL_UNIFORM);
  for (GLuint i = 0; i < uniform_count; ++i) {
    auto p = resource_props(
        program, GL_UNIFORM, i,
        {GL_BLOCK_INDEX, GL_TYPE, GL_ARRAY_SIZE, GL_LOCATION, GL_REFERENCED_BY_VERTEX_SHADER,
         GL_REFERENCED_BY_FRAGMENT_SHADER, GL_REFERENCED_BY_COMPUTE_SHADER});
    if (p[0] != -1) continue;  // a member of a uniform block, bound as a whole block
    UniformVariable u;
    const std::string raw = resource_name(program, GL_UNIFORM, i);
    u.is_array = raw.size() > 3 && raw.compare(raw.size() - 3, 3, "[0]") == 0;
    u.name = strip_array_suffix(raw);
    u.type = describe_type(static_cast<GLenum>(p[1]));
    u.array_size = p[2];
    u.location = p[3];
    u.stages = stage_bits(p[4], p[5], p[6]);
    pi.uniforms.push_back(u);
  }

  const GLuint block_count = resource_count(program, GL_SHADER_STORAGE_BLOCK);
  for (GLuint i = 0; i < block_count; ++i) {
    StorageBlock b;
    b.name = strip_array_suffix(resource_name(program, GL_SHADER_STORAGE_BLOCK, i));
    auto p = resource_props(program, GL_SHADER_STORAGE_BLOCK, i,
                            {GL_BUFFER_BINDING, GL_BUFFER_DATA_SIZE, GL_NUM_ACTIVE_VARIABLES,
                             GL_REFERENCED_BY_VERTEX_SHADER, GL_REFERENCED_BY_FRAGMENT_SHADER,
                             GL_REFERENCED_BY_COMPUTE_SHADER});
    b.binding = p[0];
    b.fixed_size = p[1];
    b.stages = stage_bits(p[3], p[4], p[5]);
    std::vector<GLint> members(static_cast<std::size_t>(p[2]), 0);
    if (!members.empty()) {
      const GLenum active = GL_ACTIVE_VARIABLES;
      GL(glGetProgramResourceiv(program, GL_SHADER_STORAGE_BLOCK, i, 1, &active,
                                static_cast<GLsizei>(members.size()), nullptr, members.data()));
    }
    for (GLint m : members) {
      b.members.push_back(last_component(
          strip_array_suffix(resource_name(program, GL_BUFFER_VARIABLE, static_cast<GLuint>(m)))));
    }
    if (members.size() == 1) {
      const auto m = static_cast<GLuint>(members[0]);
      const std::string raw = resource_name(program, GL_BUFFER_VARIABLE, m);
      auto v =
          resource_props(program, GL_BUFFER_VARIABLE, m,
                         {GL_TYPE, GL_ARRAY_SIZE, GL_OFFSET, GL_ARRAY_STRIDE, GL_MATRIX_STRIDE,
                          GL_IS_ROW_MAJOR, GL_TOP_LEVEL_ARRAY_SIZE, GL_TOP_LEVEL_ARRAY_STRIDE});
      b.member_name = b.members[0];
      b.element = describe_type(static_cast<GLenum>(v[0]));
      // A member that is not an array of structs: its own array size and stride describe it.
      const bool plain_array =
          raw.find('.') == std::string::npos || raw.rfind("[0]") == raw.size() - 3;
      b.single_array = b.element.known && !b.element.is_opaque() && plain_array &&
                       raw.find("].") == std::string::npos;
      b.array_size = v[1];
      b.offset = v[2];
      b.array_stride = v[3] != 0 ? v[3] : v[7];
      b.matrix_stride = v[4];
      b.row_major = v[5] != 0;
      if (b.array_stride == 0) b.array_stride = 4 * b.element.components();  // a lone scalar
    }
    pi.storage_blocks.push_back(b);
  }

  const GLuint ublock_count = resource_count(program, GL_UNIFORM_BLOCK);
  for (GLuint i = 0; i < ublock_count; ++i) {
    pi.uniform_blocks.push_back(strip_array_suffix(resource_name(program, GL_UNIFORM_BLOCK, i)));
  }
  if (is_compute) {
    GL(glGetProgramiv(program, GL_COMPUTE_WORK_GROUP_SIZE, pi.local_size));
  } else {
    pi.inputs = stage_variables(program, GL_PROGRAM_INPUT);
    pi.outputs = stage_variables(program, GL_PROGRAM_OUTPUT);
  }
  return pi;
}

}  // namespace gpgpu::detail
