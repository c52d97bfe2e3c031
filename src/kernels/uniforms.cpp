// Setting a call's uniforms and binding its textures on the program in use: the GL half of
// argument binding (binding/ checks them first, without GL).
#include <cstdint>

#include <fmt/format.h>

#include "binding/texture_binding.hpp"
#include "gl/context_state.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/texture.hpp"
#include "kernels/kernel_core.hpp"
#include "resources/texel_format.hpp"

namespace gpgpu::detail {

GLenum buffer_texel_format(ElementType type, std::size_t components) {
  const bool four = components == 4;
  switch (type) {
    case ElementType::Float32:
      return four ? GL_RGBA32F : GL_R32F;
    case ElementType::Int32:
      return four ? GL_RGBA32I : GL_R32I;
    case ElementType::Uint32:
      return four ? GL_RGBA32UI : GL_R32UI;
  }
  return GL_R32F;
}

void attach_buffer_view(ContextState& state, GLuint unit, GLenum format, GLuint buffer) {
  while (state.buffer_views.size() <= unit) {
    GLuint name = 0;
    GL(glGenTextures(1, &name));
    state.buffer_views.push_back(name);
    state.buffer_view_attached.push_back(false);
  }
  GL(glActiveTexture(GL_TEXTURE0 + unit));
  GL(glBindTexture(GL_TEXTURE_BUFFER, state.buffer_views[unit]));
  GL(glTexBuffer(GL_TEXTURE_BUFFER, format, buffer));
  state.buffer_view_attached[unit] = true;
  state.engine_while_current().note_gpu_use(buffer);
  GL(glActiveTexture(GL_TEXTURE0));
}

void bind_texture_unit(GLuint unit, GLenum target, GLuint texture) {
  GL(glActiveTexture(GL_TEXTURE0 + unit));
  GL(glBindTexture(target, texture));
  GL(glActiveTexture(GL_TEXTURE0));
}

void bind_buffer_texels(const Arg& arg, const UniformVariable& sampler, GLuint unit,
                        const std::string& label) {
  check_buffer_texels(arg, sampler, label);
  ContextState& state = *arg.buffer()->context_state();
  if (static_cast<std::int64_t>(unit) >= state.info.max_combined_texture_image_units) {
    throw LimitError(fmt::format("{}: sampler {} would need texture unit {}, but the device has {}",
                                 label, sampler.name, unit,
                                 state.info.max_combined_texture_image_units));
  }
  attach_buffer_view(state, unit, buffer_texel_format(arg.buffer()->element_type(), arg.count()),
                     arg.buffer()->gl_name());
  GL(glUniform1i(sampler.location, static_cast<GLint>(unit)));
}

void detach_buffer_texels(ContextState& state) {
  // No views were ever made (always so in WebGL2, which has no buffer textures).
  if (state.buffer_views.empty()) return;
  for (std::size_t unit = 0; unit < state.buffer_views.size(); ++unit) {
    if (!state.buffer_view_attached[unit]) continue;
    GL(glBindTexture(GL_TEXTURE_BUFFER, state.buffer_views[unit]));
    GL(glTexBuffer(GL_TEXTURE_BUFFER, GL_R32F, 0));
    state.buffer_view_attached[unit] = false;
  }
  GL(glBindTexture(GL_TEXTURE_BUFFER, 0));
}

void bind_texture_to_sampler(const Texture& texture, const UniformVariable& sampler, GLuint unit,
                             const std::string& label) {
  check_texture_binding(texture, sampler, label);
  const auto& info = texture.context_state()->info;
  if (static_cast<std::int64_t>(unit) >= info.max_combined_texture_image_units) {
    throw LimitError(
        fmt::format("{}: sampler {} would need texture unit {}, but the device has {} "
                    "(GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS); use fewer textures",
                    label, sampler.name, unit, info.max_combined_texture_image_units));
  }
  bind_texture_unit(unit, texture_target(texture), texture.gl_name());
  GL(glUniform1i(sampler.location, static_cast<GLint>(unit)));
}

GLenum texture_target(const Texture& texture) {
  return texture.dimensions() == 3 ? GL_TEXTURE_3D : GL_TEXTURE_2D;
}

GLuint image_unit(GLuint program, const UniformVariable& image) {
  GLint unit = 0;
  GL(glGetUniformiv(program, image.location, &unit));
  return static_cast<GLuint>(unit);
}

GLenum image_access(Access access) {
  return access == Access::Read    ? GL_READ_ONLY
         : access == Access::Write ? GL_WRITE_ONLY
                                   : GL_READ_WRITE;
}

void bind_texture_to_image(const Texture& texture, const UniformVariable& image, Access access,
                           const std::string& label) {
  check_texture_binding(texture, image, label);
  // OpenGL ES fixes an image's unit in the shader (layout(binding = N)); read it back.
  GLint program = 0;
  GL(glGetIntegerv(GL_CURRENT_PROGRAM, &program));
  // The image unit takes the texture's own format; the shader's layout(...) qualifier must
  // name the same one (r32f for float texels, rgba32f for vec4, r32i, r32ui...), which
  // introspection cannot see.
  GL(glBindImageTexture(image_unit(static_cast<GLuint>(program), image), texture.gl_name(), 0,
                        texture.dimensions() == 3 ? GL_TRUE : GL_FALSE, 0, image_access(access),
                        texel_format(texture.texel_type()).internal_format));
}

void write_uniform(const UniformVariable& u, GLsizei count, bool row_major, const void* data,
                   const std::string& label) {
  const GLint loc = u.location;
  const auto* f = static_cast<const GLfloat*>(data);
  const auto* i = static_cast<const GLint*>(data);
  const auto* ui = static_cast<const GLuint*>(data);
  const GLboolean transpose = row_major ? GL_TRUE : GL_FALSE;
  switch (u.type.gl) {
    case GL_FLOAT:
      GL(glUniform1fv(loc, count, f));
      break;
    case GL_FLOAT_VEC2:
      GL(glUniform2fv(loc, count, f));
      break;
    case GL_FLOAT_VEC3:
      GL(glUniform3fv(loc, count, f));
      break;
    case GL_FLOAT_VEC4:
      GL(glUniform4fv(loc, count, f));
      break;
    case GL_INT:
    case GL_BOOL:
      GL(glUniform1iv(loc, count, i));
      break;
    case GL_INT_VEC2:
    case GL_BOOL_VEC2:
      GL(glUniform2iv(loc, count, i));
      break;
    case GL_INT_VEC3:
    case GL_BOOL_VEC3:
      GL(glUniform3iv(loc, count, i));
      break;
    case GL_INT_VEC4:
    case GL_BOOL_VEC4:
      GL(glUniform4iv(loc, count, i));
      break;
    case GL_UNSIGNED_INT:
      GL(glUniform1uiv(loc, count, ui));
      break;
    case GL_UNSIGNED_INT_VEC2:
      GL(glUniform2uiv(loc, count, ui));
      break;
    case GL_UNSIGNED_INT_VEC3:
      GL(glUniform3uiv(loc, count, ui));
      break;
    case GL_UNSIGNED_INT_VEC4:
      GL(glUniform4uiv(loc, count, ui));
      break;
    case GL_FLOAT_MAT2:
      GL(glUniformMatrix2fv(loc, count, transpose, f));
      break;
    case GL_FLOAT_MAT3:
      GL(glUniformMatrix3fv(loc, count, transpose, f));
      break;
    case GL_FLOAT_MAT4:
      GL(glUniformMatrix4fv(loc, count, transpose, f));
      break;
    case GL_FLOAT_MAT2x3:
      GL(glUniformMatrix2x3fv(loc, count, transpose, f));
      break;
    case GL_FLOAT_MAT2x4:
      GL(glUniformMatrix2x4fv(loc, count, transpose, f));
      break;
    case GL_FLOAT_MAT3x2:
      GL(glUniformMatrix3x2fv(loc, count, transpose, f));
      break;
    case GL_FLOAT_MAT3x4:
      GL(glUniformMatrix3x4fv(loc, count, transpose, f));
      break;
    case GL_FLOAT_MAT4x2:
      GL(glUniformMatrix4x2fv(loc, count, transpose, f));
      break;
    case GL_FLOAT_MAT4x3:
      GL(glUniformMatrix4x3fv(loc, count, transpose, f));
      break;
    default:
      throw TypeMismatchError(fmt::format("{}: uniform '{}' has a type gpgpu cannot set ({})",
                                          label, u.name, u.type.name));
  }
}

void set_uniform(const UniformVariable& u, const NamedArg& arg, GLuint& next_texture_unit,
                 const std::string& label) {
  const Arg& v = arg.value;
  if (is_buffer_sampler(u.type.gl)) {
    bind_buffer_texels(v, u, next_texture_unit++, label);
    return;
  }
  if (u.type.is_sampler) {
    bind_texture_to_sampler(*v.texture(), u, next_texture_unit++, label);
    return;
  }
  if (u.type.is_image) {
    bind_texture_to_image(*v.texture(), u, Access::ReadWrite, label);
    return;
  }
  write_uniform(u, uniform_elements(u), v.layout() == MatrixLayout::RowMajor, v.data(), label);
}

GLsizei uniform_elements(const UniformVariable& u) {
  return static_cast<GLsizei>(u.is_array ? u.array_size : 1);
}

void set_internal_uint(const ProgramInterface& interface, const char* name, GLuint value) {
  if (const auto* u = interface.find_uniform(name)) GL(glUniform1ui(u->location, value));
}

void set_internal_int(const ProgramInterface& interface, const char* name, GLint value) {
  if (const auto* u = interface.find_uniform(name)) GL(glUniform1i(u->location, value));
}

void set_uniforms(const ResolvedArgs& resolved, const std::string& label) {
  GLuint texture_unit = 0;
  for (auto [uniform, arg] : resolved.uniforms) set_uniform(*uniform, *arg, texture_unit, label);
}

}  // namespace gpgpu::detail
