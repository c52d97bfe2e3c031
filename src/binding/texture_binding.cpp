#include "binding/texture_binding.hpp"

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/texture.hpp"
#include "resources/texel_format.hpp"

namespace gpgpu::detail {

namespace {

// 2 or 3 for the sampler and image types a Texture binds to, 0 for any other.
int dimensions_of(GLenum type) {
  switch (type) {
    case GL_SAMPLER_2D:
    case GL_INT_SAMPLER_2D:
    case GL_UNSIGNED_INT_SAMPLER_2D:
    case GL_IMAGE_2D:
    case GL_INT_IMAGE_2D:
    case GL_UNSIGNED_INT_IMAGE_2D:
      return 2;
    case GL_SAMPLER_3D:
    case GL_INT_SAMPLER_3D:
    case GL_UNSIGNED_INT_SAMPLER_3D:
    case GL_IMAGE_3D:
    case GL_INT_IMAGE_3D:
    case GL_UNSIGNED_INT_IMAGE_3D:
      return 3;
    default:
      return 0;
  }
}

const char* texel_choices(ElementType element, bool image) {
  switch (element) {
    case ElementType::Float32:
      return image ? "float or vec4" : "float, vec2, vec3 or vec4";
    case ElementType::Int32:
      return "int or ivec4";
    case ElementType::Uint32:
      return "uint or uvec4";
  }
  return "?";
}

}  // namespace

void check_texture_binding(const Texture& texture, const UniformVariable& variable,
                           const std::string& label) {
  const auto& type = variable.type;
  const char* kind = type.is_image ? "image" : "sampler";
  if (!texture.valid()) {
    throw ArgumentError(fmt::format("{}: the Texture for uniform {} {} is empty or released", label,
                                    type.name, variable.name));
  }
  if (texture.context_state()->context != eglGetCurrentContext()) {
    throw ArgumentError(fmt::format("{}: the Texture for uniform {} {} belongs to another Context",
                                    label, type.name, variable.name));
  }
  if (variable.is_array) {
    throw TypeMismatchError(fmt::format(
        "{}: uniform {} {}[{}] is an array of {}s; gpgpu binds one Texture per {} (declare one "
        "uniform per texture)",
        label, type.name, variable.name, variable.array_size, kind, kind));
  }
  const int dims = dimensions_of(type.gl);
  if (dims == 0) {
    throw TypeMismatchError(fmt::format(
        "{}: uniform {} {} has a {} type gpgpu textures do not bind to; declare it sampler2D, "
        "sampler3D, isampler2D/3D, usampler2D/3D, image2D/3D, iimage2D/3D or uimage2D/3D",
        label, type.name, variable.name, kind));
  }
  const ElementType texel_element = element_type(texture.texel_type());
  if (dims != texture.dimensions() || texel_element != type.element) {
    throw TypeMismatchError(
        fmt::format("{}: uniform {} {} needs a {}-D texture of {} texels, but it was given {}",
                    label, type.name, variable.name, dims,
                    texel_choices(type.element, type.is_image), texture.describe()));
  }
  if (type.is_image && texel_format(texture.texel_type()).image_layout == nullptr) {
    throw TypeMismatchError(fmt::format(
        "{}: uniform {} {} was given {}, but OpenGL ES has no image format for {} texels; use "
        "float or vec4 (r32f, rgba32f) textures for images",
        label, type.name, variable.name, texture.describe(), to_string(texture.texel_type())));
  }
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
  GL(glActiveTexture(GL_TEXTURE0 + unit));
  GL(glBindTexture(texture.dimensions() == 3 ? GL_TEXTURE_3D : GL_TEXTURE_2D, texture.gl_name()));
  GL(glUniform1i(sampler.location, static_cast<GLint>(unit)));
  GL(glActiveTexture(GL_TEXTURE0));
}

void bind_texture_to_image(const Texture& texture, const UniformVariable& image, Access access,
                           const std::string& label) {
  check_texture_binding(texture, image, label);
  // OpenGL ES fixes an image's unit in the shader (layout(binding = N)); read it back.
  GLint program = 0;
  GL(glGetIntegerv(GL_CURRENT_PROGRAM, &program));
  GLint unit = 0;
  GL(glGetUniformiv(static_cast<GLuint>(program), image.location, &unit));
  const GLenum gl_access = access == Access::Read    ? GL_READ_ONLY
                           : access == Access::Write ? GL_WRITE_ONLY
                                                     : GL_READ_WRITE;
  // The image unit takes the texture's own format; the shader's layout(...) qualifier must
  // name the same one (r32f for float texels, rgba32f for vec4, r32i, r32ui...), which
  // introspection cannot see.
  GL(glBindImageTexture(static_cast<GLuint>(unit), texture.gl_name(), 0,
                        texture.dimensions() == 3 ? GL_TRUE : GL_FALSE, 0, gl_access,
                        texel_format(texture.texel_type()).internal_format));
}

}  // namespace gpgpu::detail
