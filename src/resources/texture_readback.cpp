#include "resources/texture_readback.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "gl/framebuffer.hpp"
#include "gl/gl_buffer.hpp"
#include "shader/glsl_source.hpp"
#include "gpgpu/error.hpp"
#include "shader/program.hpp"
#include "resources/texel_format.hpp"

namespace gpgpu::detail {

namespace {

constexpr GLuint copy_group_size = 64;

// Copies texels [gpgpu_first, gpgpu_first + gpgpu_count) of the texture, in row-major
// order, into a storage buffer of 4-component vectors.
constexpr std::string_view copy_shader = R"(
layout(local_size_x = 64) in;
uniform highp SAMPLER source_texture;
layout(std430, binding = 0) writeonly buffer Texels { VEC4 texels[]; };
uniform int gpgpu_first;
uniform int gpgpu_count;
uniform ivec2 gpgpu_extent;  // columns, rows
void main() {
  int i = int(gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
              gl_GlobalInvocationID.x);
  if (i >= gpgpu_count) return;
  int t = gpgpu_first + i;
  int x = t % gpgpu_extent.x;
  int y = (t / gpgpu_extent.x) % gpgpu_extent.y;
#if IS_3D
  int z = t / (gpgpu_extent.x * gpgpu_extent.y);
  texels[i] = texelFetch(source_texture, ivec3(x, y, z), 0);
#else
  texels[i] = texelFetch(source_texture, ivec2(x, y), 0);
#endif
}
)";

void set_pack_state() {
  GL(glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
  GL(glPixelStorei(GL_PACK_ALIGNMENT, 4));
  GL(glPixelStorei(GL_PACK_ROW_LENGTH, 0));
  GL(glPixelStorei(GL_PACK_SKIP_ROWS, 0));
  GL(glPixelStorei(GL_PACK_SKIP_PIXELS, 0));
}

// Four values per texel, all layers, through glReadPixels.
std::vector<std::uint32_t> read_with_framebuffer(GLuint texture, TexelType type,
                                                 TextureExtent extent) {
  const auto& format = texel_format(type);
  const std::size_t layer_texels = extent.cols * extent.rows;
  const std::size_t layers = extent.depth == 0 ? 1 : extent.depth;
  std::vector<std::uint32_t> rgba(layer_texels * layers * 4);
  set_pack_state();
  for (std::size_t layer = 0; layer < layers; ++layer) {
    ColorAttachment attachment;
    attachment.texture = texture;
    attachment.type = type;
    attachment.layer = extent.depth == 0 ? -1 : static_cast<int>(layer);
    attachment.what = "the texture being read back";
    Framebuffer framebuffer({attachment}, "Texture::download");
    GL(glReadBuffer(GL_COLOR_ATTACHMENT0));
    GL(glReadPixels(0, 0, static_cast<GLsizei>(extent.cols), static_cast<GLsizei>(extent.rows),
                    format.read_format, format.gl_type, rgba.data() + layer * layer_texels * 4));
  }
  return rgba;
}

// Four values per texel, through a compute shader; for formats no framebuffer takes.
std::vector<std::uint32_t> read_with_compute(ContextState& state, GLuint texture, TexelType type,
                                             TextureExtent extent, std::size_t texels) {
  const auto& format = texel_format(type);
  const bool is_3d = extent.depth != 0;
  const std::string prefix =
      format.is_integer ? (element_type(type) == ElementType::Int32 ? "i" : "u") : "";
  const Defines defines = {{"SAMPLER", prefix + (is_3d ? "sampler3D" : "sampler2D")},
                           {"VEC4", prefix.empty() ? "vec4" : prefix + "vec4"},
                           {"IS_3D", is_3d ? "1" : "0"}};
  ShaderStage stage{GL_COMPUTE_SHADER,
                    complete_source(copy_shader, GL_COMPUTE_SHADER, state.info, defines, ""),
                    std::string(copy_shader)};
  auto program = cached_program(state, "texture-readback\n" + stage.source, {stage}, {},
                                "gpgpu texture read-back");
  const auto& pi = program->interface();

  // Chunks that fit one storage binding and one row of work groups.
  const auto max_groups = static_cast<std::size_t>(state.info.max_compute_work_group_count[0]);
  const auto max_block = static_cast<std::size_t>(state.info.max_shader_storage_block_size) / 16;
  const std::size_t chunk = std::min({texels, max_block, max_groups * copy_group_size});
  std::vector<std::uint32_t> rgba(texels * 4);
  ScopedGlBuffer storage(create_gl_buffer(chunk * 16, nullptr, GL_DYNAMIC_COPY));
  GL(glUseProgram(program->id()));
  GL(glActiveTexture(GL_TEXTURE0));
  GL(glBindTexture(is_3d ? GL_TEXTURE_3D : GL_TEXTURE_2D, texture));
  GL(glUniform1i(pi.find_uniform("source_texture")->location, 0));
  GL(glUniform2i(pi.find_uniform("gpgpu_extent")->location, static_cast<GLint>(extent.cols),
                 static_cast<GLint>(extent.rows)));
  GL(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, storage.id()));
  for (std::size_t first = 0; first < texels; first += chunk) {
    const std::size_t count = std::min(chunk, texels - first);
    GL(glUniform1i(pi.find_uniform("gpgpu_first")->location, static_cast<GLint>(first)));
    GL(glUniform1i(pi.find_uniform("gpgpu_count")->location, static_cast<GLint>(count)));
    const std::size_t groups = (count + copy_group_size - 1) / copy_group_size;
    GL(glDispatchCompute(static_cast<GLuint>(groups), 1, 1));
    GL(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
    read_gl_buffer(storage.id(), 0, count * 16, rgba.data() + first * 4);
  }
  GL(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0));
  GL(glUseProgram(0));
  return rgba;
}

}  // namespace

void read_texture(ContextState& state, GLuint texture, TexelType type, TextureExtent extent,
                  std::size_t texels, void* out) {
  state.ensure_current();
  const std::vector<std::uint32_t> rgba =
      is_color_renderable(type, state.info.has_color_buffer_float())
          ? read_with_framebuffer(texture, type, extent)
          : read_with_compute(state, texture, type, extent, texels);
  const auto n = static_cast<std::size_t>(components(type));
  auto* values = static_cast<std::uint32_t*>(out);
  for (std::size_t t = 0; t < texels; ++t) {
    std::memcpy(values + t * n, rgba.data() + t * 4, n * sizeof(std::uint32_t));
  }
}

}  // namespace gpgpu::detail
