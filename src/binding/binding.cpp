#include "binding/binding.hpp"

#include <set>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "binding/texture_binding.hpp"

namespace gpgpu::detail {

namespace {
bool is_internal(const std::string& name) { return name.rfind("gpgpu_", 0) == 0; }
}  // namespace

ResolvedArgs resolve_args(const ProgramInterface& interface, const Args& args,
                          const std::string& label, bool outputs_required) {
  ResolvedArgs r;
  std::set<std::string> seen;
  std::set<const void*> bound;
  for (const auto& arg : args) {
    if (!seen.insert(arg.name).second) {
      throw ArgumentError(fmt::format("{}: argument '{}' is given twice", label, arg.name));
    }
    if (is_internal(arg.name)) {
      throw ArgumentError(fmt::format(
          "{}: '{}' is set by gpgpu itself (names starting with gpgpu_ are reserved)", label,
          arg.name));
    }
    if (const auto* b = interface.find_block(arg.name)) {
      if (!bound.insert(b).second) {
        throw ArgumentError(fmt::format(
            "{}: storage block '{}' is given twice (by its block name and its member name)",
            label, b->name));
      }
      r.blocks.emplace_back(b, &arg);
      continue;
    }
    if (const auto* u = interface.find_uniform(arg.name)) {
      r.uniforms.emplace_back(u, &arg);
      bound.insert(u);
      continue;
    }
    bool matched = false;
    for (const auto& v : interface.inputs) {
      if (v.name == arg.name) {
        r.inputs.emplace_back(&v, &arg);
        bound.insert(&v);
        matched = true;
      }
    }
    for (const auto& v : interface.outputs) {
      if (v.name == arg.name) {
        r.outputs.emplace_back(&v, &arg);
        bound.insert(&v);
        matched = true;
      }
    }
    if (!matched) {
      throw UnknownArgumentError(fmt::format(
          "{}: argument '{}' matches no active variable of the kernel (the compiler drops "
          "variables that do not affect the result). The kernel's variables are:{}",
          label, arg.name, interface.describe()));
    }
  }

  std::vector<std::string> missing;
  for (const auto& b : interface.storage_blocks) {
    if (!bound.count(&b)) {
      missing.push_back(b.member_name.empty() ? fmt::format("buffer {}", b.name)
                                              : fmt::format("buffer {} ({})", b.name, b.member_name));
    }
  }
  for (const auto& u : interface.uniforms) {
    if (!is_internal(u.name) && !bound.count(&u)) {
      missing.push_back(fmt::format("uniform {} {}", u.type.name, u.name));
    }
  }
  for (const auto& v : interface.inputs) {
    if (!bound.count(&v)) missing.push_back(fmt::format("in {} {}", v.type.name, v.name));
  }
  if (outputs_required) {
    for (const auto& v : interface.outputs) {
      if (!bound.count(&v)) missing.push_back(fmt::format("out {} {}", v.type.name, v.name));
    }
  }
  if (!missing.empty()) {
    throw MissingArgumentError(fmt::format("{}: no value given for: {}", label,
                                           fmt::join(missing, ", ")));
  }
  return r;
}

void check_element_type(const NamedArg& arg, const GlslType& type, const std::string& label,
                        const char* what) {
  if (!type.known) {
    throw TypeMismatchError(fmt::format("{}: {} '{}' has a type gpgpu cannot bind ({})", label,
                                        what, arg.name, type.name));
  }
  if (arg.value.element_type() != type.element) {
    throw TypeMismatchError(fmt::format(
        "{}: {} '{}' is declared {} ({} components) but was given {}; pass {} data", label, what,
        arg.name, type.name, glsl_scalar_name(type.element), arg.value.describe(),
        to_string(type.element)));
  }
}

std::size_t whole_elements(const NamedArg& arg, const GlslType& type, const std::string& label,
                           const char* what) {
  const auto components = static_cast<std::size_t>(type.components());
  if (arg.value.count() % components != 0) {
    throw SizeMismatchError(fmt::format(
        "{}: {} '{}' is an array of {} ({} components each), but {} values were given, which "
        "is not a multiple of {}",
        label, what, arg.name, type.name, components, arg.value.count(), components));
  }
  return arg.value.count() / components;
}

void check_uniform(const UniformVariable& u, const NamedArg& arg, const std::string& label) {
  const Arg& v = arg.value;
  if (u.type.is_opaque()) {
    if (v.kind() != Arg::Kind::DeviceTexture) {
      throw TypeMismatchError(fmt::format("{}: uniform {} {} takes a gpgpu::Texture, not {}",
                                          label, u.type.name, u.name, v.describe()));
    }
    return;
  }
  if (v.kind() == Arg::Kind::DeviceBuffer || v.kind() == Arg::Kind::DeviceTexture) {
    throw TypeMismatchError(fmt::format("{}: uniform {} {} takes host values, not {}", label,
                                        u.type.name, u.name, v.describe()));
  }
  check_element_type(arg, u.type, label, "uniform");
  const auto components = static_cast<std::size_t>(u.type.components());
  if (!u.is_array) {
    if (v.count() != components) {
      throw SizeMismatchError(fmt::format("{}: uniform {} {} needs {} values, {} were given", label,
                                          u.type.name, u.name, components, v.count()));
    }
    return;
  }
  const std::size_t elements = whole_elements(arg, u.type, label, "uniform");
  // GL reports the active size of a uniform array, which can be smaller than declared.
  if (elements < static_cast<std::size_t>(u.array_size)) {
    throw SizeMismatchError(fmt::format(
        "{}: uniform {} {}[] uses at least {} elements ({} values), but {} values were given",
        label, u.type.name, u.name, u.array_size, static_cast<std::size_t>(u.array_size) * components,
        v.count()));
  }
}

void set_uniform(const UniformVariable& u, const NamedArg& arg, GLuint& next_texture_unit,
                 const std::string& label) {
  const Arg& v = arg.value;
  if (u.type.is_sampler) {
    bind_texture_to_sampler(*v.texture(), u, next_texture_unit++, label);
    return;
  }
  if (u.type.is_image) {
    bind_texture_to_image(*v.texture(), u, Access::ReadWrite, label);
    return;
  }
  const GLint loc = u.location;
  const auto count = static_cast<GLsizei>(u.is_array ? u.array_size : 1);
  const auto* f = static_cast<const GLfloat*>(v.data());
  const auto* i = static_cast<const GLint*>(v.data());
  const auto* ui = static_cast<const GLuint*>(v.data());
  const GLboolean transpose = v.layout() == MatrixLayout::RowMajor ? GL_TRUE : GL_FALSE;
  switch (u.type.gl) {
    case GL_FLOAT: GL(glUniform1fv(loc, count, f)); break;
    case GL_FLOAT_VEC2: GL(glUniform2fv(loc, count, f)); break;
    case GL_FLOAT_VEC3: GL(glUniform3fv(loc, count, f)); break;
    case GL_FLOAT_VEC4: GL(glUniform4fv(loc, count, f)); break;
    case GL_INT:
    case GL_BOOL: GL(glUniform1iv(loc, count, i)); break;
    case GL_INT_VEC2:
    case GL_BOOL_VEC2: GL(glUniform2iv(loc, count, i)); break;
    case GL_INT_VEC3:
    case GL_BOOL_VEC3: GL(glUniform3iv(loc, count, i)); break;
    case GL_INT_VEC4:
    case GL_BOOL_VEC4: GL(glUniform4iv(loc, count, i)); break;
    case GL_UNSIGNED_INT: GL(glUniform1uiv(loc, count, ui)); break;
    case GL_UNSIGNED_INT_VEC2: GL(glUniform2uiv(loc, count, ui)); break;
    case GL_UNSIGNED_INT_VEC3: GL(glUniform3uiv(loc, count, ui)); break;
    case GL_UNSIGNED_INT_VEC4: GL(glUniform4uiv(loc, count, ui)); break;
    case GL_FLOAT_MAT2: GL(glUniformMatrix2fv(loc, count, transpose, f)); break;
    case GL_FLOAT_MAT3: GL(glUniformMatrix3fv(loc, count, transpose, f)); break;
    case GL_FLOAT_MAT4: GL(glUniformMatrix4fv(loc, count, transpose, f)); break;
    case GL_FLOAT_MAT2x3: GL(glUniformMatrix2x3fv(loc, count, transpose, f)); break;
    case GL_FLOAT_MAT2x4: GL(glUniformMatrix2x4fv(loc, count, transpose, f)); break;
    case GL_FLOAT_MAT3x2: GL(glUniformMatrix3x2fv(loc, count, transpose, f)); break;
    case GL_FLOAT_MAT3x4: GL(glUniformMatrix3x4fv(loc, count, transpose, f)); break;
    case GL_FLOAT_MAT4x2: GL(glUniformMatrix4x2fv(loc, count, transpose, f)); break;
    case GL_FLOAT_MAT4x3: GL(glUniformMatrix4x3fv(loc, count, transpose, f)); break;
    default:
      throw TypeMismatchError(
          fmt::format("{}: uniform '{}' has a type gpgpu cannot set ({})", label, u.name, u.type.name));
  }
}

void set_internal_uint(const ProgramInterface& interface, const char* name, GLuint value) {
  if (const auto* u = interface.find_uniform(name)) GL(glUniform1ui(u->location, value));
}

}  // namespace gpgpu::detail
