#include "resources/texture_readback.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "gl/framebuffer.hpp"
#include "gpgpu/error.hpp"
#include "resources/texel_format.hpp"
#include "shader/glsl_source.hpp"
#include "shader/program.hpp"

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
  GL(glPixelStorei(GL_PACK_ALIGNMENT, 4));
  GL(glPixelStorei(GL_PACK_ROW_LENGTH, 0));
  GL(glPixelStorei(GL_PACK_SKIP_ROWS, 0));
  GL(glPixelStorei(GL_PACK_SKIP_PIXELS, 0));
}

// The commit step: `texels` RGBA texels (16 bytes each) into `components` values each.
void queue_compaction(RunTransfers& io, GLuint buffer, std::size_t texels, TexelType type,
                      void* out) {
  const auto n = static_cast<std::size_t>(components(type));
  if (n == 4) {  // the layout of the host array already
    io.download(buffer, 0, out, texels * 16);
    return;
  }
  io.download_then(buffer, 0, texels * 16, [texels, n, out](const unsigned char* rgba) {
    auto* values = static_cast<unsigned char*>(out);
    for (std::size_t t = 0; t < texels; ++t) std::memcpy(values + t * n * 4, rgba + t * 16, n * 4);
  });
}

// glReadPixels of whole rows into `buffer` at `offset` (a pack buffer: nothing waits).
void read_rows_into(GLuint buffer, std::size_t offset, TexelType type, std::size_t cols,
                    std::size_t rows) {
  const auto& format = texel_format(type);
  GL(glBindBuffer(GL_PIXEL_PACK_BUFFER, buffer));
  GL(glReadPixels(0, 0, static_cast<GLsizei>(cols), static_cast<GLsizei>(rows), format.read_format,
                  format.gl_type, reinterpret_cast<void*>(static_cast<std::uintptr_t>(offset))));
  GL(glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
}

// Four values per texel, all layers, through glReadPixels into a pooled pack buffer.
void read_with_framebuffer(ContextState& state, RunTransfers& io, GLuint texture, TexelType type,
                           TextureExtent extent, std::size_t texels, void* out) {
  const std::size_t layer_texels = extent.cols * extent.rows;
  const std::size_t layers = extent.depth == 0 ? 1 : extent.depth;
  const GLuint pack = io.temporary(layer_texels * layers * 16);
  set_pack_state();
  const Framebuffer framebuffer(state);
  for (std::size_t layer = 0; layer < layers; ++layer) {
    ColorAttachment attachment;
    attachment.texture = texture;
    attachment.type = type;
    attachment.layer = extent.depth == 0 ? -1 : static_cast<int>(layer);
    attachment.what = "the texture being read back";
    const FramebufferScope scope(framebuffer.id(), {attachment}, "Texture::download");
    GL(glReadBuffer(GL_COLOR_ATTACHMENT0));
    read_rows_into(pack, layer * layer_texels * 16, type, extent.cols, extent.rows);
  }
  queue_compaction(io, pack, texels, type, out);
}

// Four values per texel, through a compute shader; for formats no framebuffer takes.
void read_with_compute(ContextState& state, RunTransfers& io, GLuint texture, TexelType type,
                       TextureExtent extent, std::size_t texels, void* out) {
  refuse_without(state.platform.gles31, state,
                 "reading back a texture no framebuffer can hold (vec3 texels, or float texels "
                 "without EXT_color_buffer_float)",
                 "it takes a compute shader, which WebGL2 lacks; use vec4 texels");
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

  // Chunks that fit one storage binding and one row of work groups, into one buffer.
  const auto max_groups = static_cast<std::size_t>(state.info.max_compute_work_group_count[0]);
  const auto max_block = static_cast<std::size_t>(state.info.max_shader_storage_block_size) / 16;
  const std::size_t chunk = std::min({texels, max_block, max_groups * copy_group_size});
  const GLuint storage = io.temporary(texels * 16);
  GL(glUseProgram(program->id()));
  GL(glActiveTexture(GL_TEXTURE0));
  GL(glBindTexture(is_3d ? GL_TEXTURE_3D : GL_TEXTURE_2D, texture));
  GL(glUniform1i(pi.find_uniform("source_texture")->location, 0));
  GL(glUniform2i(pi.find_uniform("gpgpu_extent")->location, static_cast<GLint>(extent.cols),
                 static_cast<GLint>(extent.rows)));
  for (std::size_t first = 0; first < texels; first += chunk) {
    const std::size_t count = std::min(chunk, texels - first);
    GL(glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, storage, static_cast<GLintptr>(first * 16),
                         static_cast<GLsizeiptr>(count * 16)));
    GL(glUniform1i(pi.find_uniform("gpgpu_first")->location, static_cast<GLint>(first)));
    GL(glUniform1i(pi.find_uniform("gpgpu_count")->location, static_cast<GLint>(count)));
    const std::size_t groups = (count + copy_group_size - 1) / copy_group_size;
    GL(glDispatchCompute(static_cast<GLuint>(groups), 1, 1));
  }
  GL(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
  GL(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0));
  GL(glBindTexture(is_3d ? GL_TEXTURE_3D : GL_TEXTURE_2D, 0));
  GL(glUseProgram(0));
  queue_compaction(io, storage, texels, type, out);
}

}  // namespace

void queue_texture_read(ContextState& state, RunTransfers& io, GLuint texture, TexelType type,
                        TextureExtent extent, std::size_t texels, void* out) {
  state.ensure_current();
  if (is_color_renderable(type, state.info.has_color_buffer_float())) {
    read_with_framebuffer(state, io, texture, type, extent, texels, out);
  } else {
    read_with_compute(state, io, texture, type, extent, texels, out);
  }
}

void queue_attachment_read(RunTransfers& io, int location, TexelType type, std::size_t cols,
                           std::size_t texels, void* out) {
  const std::size_t rows = (texels + cols - 1) / cols;
  const GLuint pack = io.temporary(rows * cols * 16);
  set_pack_state();
  GL(glReadBuffer(static_cast<GLenum>(GL_COLOR_ATTACHMENT0 + location)));
  read_rows_into(pack, 0, type, cols, rows);
  queue_compaction(io, pack, texels, type, out);
}

}  // namespace gpgpu::detail
