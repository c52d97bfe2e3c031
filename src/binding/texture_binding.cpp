#include "binding/texture_binding.hpp"

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gpgpu/buffer.hpp"
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
  if (!texture.context_state()->is_current()) {
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

bool is_buffer_sampler(GLenum type) {
  return type == GL_SAMPLER_BUFFER || type == GL_INT_SAMPLER_BUFFER ||
         type == GL_UNSIGNED_INT_SAMPLER_BUFFER;
}

void check_buffer_texels(const Arg& arg, const UniformVariable& sampler, const std::string& label) {
  const Buffer* b = arg.buffer();
  if (b == nullptr || !b->valid()) {
    throw ArgumentError(fmt::format("{}: the Buffer for uniform {} {} is empty or released", label,
                                    sampler.type.name, sampler.name));
  }
  if (!b->context_state()->is_current()) {
    throw ArgumentError(fmt::format("{}: the Buffer for uniform {} {} belongs to another Context",
                                    label, sampler.type.name, sampler.name));
  }
  if (b->element_type() != sampler.type.element) {
    throw TypeMismatchError(fmt::format(
        "{}: uniform {} {} reads {} texels but the Buffer holds {}", label, sampler.type.name,
        sampler.name, glsl_scalar_name(sampler.type.element), to_string(b->element_type())));
  }
  if (arg.count() != 1 && arg.count() != 4) {
    throw ArgumentError(
        fmt::format("{}: gpgpu::texels for uniform {} takes 1 or 4 components, not {}", label,
                    sampler.name, arg.count()));
  }
  // The limit as the Context's profile has it (limits.hpp).
  const std::int64_t max_texels = b->context_state()->info.max_texture_buffer_size;
  const std::size_t texels = b->size() / arg.count();
  if (texels > static_cast<std::size_t>(max_texels)) {
    throw LimitError(fmt::format(
        "{}: uniform {} {} would read {} texels; the device's buffer textures hold at most {} "
        "(GL_MAX_TEXTURE_BUFFER_SIZE)",
        label, sampler.type.name, sampler.name, texels, max_texels));
  }
}

}  // namespace gpgpu::detail
