#include "resources/device_copy.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "gl/gl_buffer.hpp"
#include "gpgpu/error.hpp"
#include "shader/glsl_source.hpp"
#include "shader/program.hpp"
#include "transfer/transfer_engine.hpp"

namespace gpgpu::detail {

namespace {

// Rows of L elements of T; the groups sweep the rows K at a time, with all K loads issued
// before any store. On an H200 a copy of 1 GiB ran at 3.8-4.0 TB/s this way with 256 x 8,
// 512 x 4 and 1024 x 2 and 132-528 groups, against 2.2 TB/s with a group per chunk (at
// 16-256 MiB both ran at 3.3-3.9 TB/s; glCopyBufferSubData at 0.17 TB/s throughout).
constexpr const char* copy_source = R"(
layout(local_size_x = L) in;
layout(std430, binding = 0) restrict readonly buffer Src { T src[]; };
layout(std430, binding = 1) restrict writeonly buffer Dst { T dst[]; };
uniform uint src_first;
uniform uint dst_first;
uniform uint count;
void main() {
  uint lid = gl_LocalInvocationID.x;
  uint step = gl_NumWorkGroups.x * uint(K * L);
  for (uint base = gl_WorkGroupID.x * uint(K * L); base < count; base += step) {
    T v[K];
    for (int k = 0; k < K; ++k) {
      uint i = base + uint(k * L) + lid;
      v[k] = i < count ? src[src_first + i] : T(0u);
    }
    for (int k = 0; k < K; ++k) {
      uint i = base + uint(k * L) + lid;
      if (i < count) dst[dst_first + i] = v[k];
    }
  }
}
)";

constexpr int rows_per_trip = 8;

struct CopyShape {
  int local;
  std::size_t element;  // bytes: 16 (uvec4) or 4 (uint)
};

std::shared_ptr<Program> copy_program(ContextState& state, const CopyShape& shape) {
  const std::string type = shape.element == 16 ? "uvec4" : "uint";
  const ShaderStage stage{
      GL_COMPUTE_SHADER,
      complete_source(
          copy_source, GL_COMPUTE_SHADER, state.info,
          {{"T", type}, {"L", std::to_string(shape.local)}, {"K", std::to_string(rows_per_trip)}},
          ""),
      std::string(copy_source)};
  return cached_program(state, "device-copy\n" + stage.source, {stage}, {}, "gpgpu device copy");
}

bool use_kernel(const ContextState& state, std::size_t bytes, const DeviceCopyOptions& options) {
  if (options.method != DeviceCopyMethod::Auto) return options.method == DeviceCopyMethod::Kernel;
  return bytes >= device_copy_kernel_bytes && state.info.has_compute_shaders() &&
         !state.info.is_software;
}

// Groups that sweep the rows: four per compute unit (512 where the count is unknown), never
// more than the rows need.
GLuint sweep_groups(const ContextState& state, std::size_t count, int local) {
  const std::size_t per_trip = static_cast<std::size_t>(local) * rows_per_trip;
  const std::size_t wanted =
      state.info.compute_units > 0 ? 4 * static_cast<std::size_t>(state.info.compute_units) : 512;
  const std::size_t max_groups = static_cast<std::size_t>(
      std::max<std::int64_t>(1, state.info.max_compute_work_group_count[0]));
  return static_cast<GLuint>(
      std::clamp<std::size_t>((count + per_trip - 1) / per_trip, 1, std::min(wanted, max_groups)));
}

void set_uniform(const Program& program, const char* name, std::size_t value) {
  if (const auto* u = program.interface().find_uniform(name)) {
    GL(glUniform1ui(u->location, static_cast<GLuint>(value)));
  }
}

// The words [source, source + bytes) to [destination, ...) with `shape`, in dispatches that
// each bind at most `chunk` bytes of either buffer, from offsets the device can bind.
void dispatch_copies(ContextState& state, const CopyShape& shape, GLuint source,
                     std::size_t source_offset, GLuint destination, std::size_t destination_offset,
                     std::size_t bytes, std::size_t chunk) {
  GLint align_query = 0;
  GL(glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &align_query));
  const std::size_t align =
      std::max<std::size_t>(shape.element, static_cast<std::size_t>(align_query));
  if (chunk <= 2 * align) {
    // A storage block too small to bind a useful range past the alignment (no ES 3.1 device:
    // its minimum is 2^27 bytes): the driver's copy instead.
    copy_gl_buffer(source, source_offset, destination, destination_offset, bytes);
    return;
  }
  const std::size_t per_dispatch = (chunk - align) / shape.element * shape.element;
  const std::shared_ptr<Program> held = copy_program(state, shape);
  const Program& program = *held;
  GL(glUseProgram(program.id()));
  for (std::size_t done = 0; done < bytes; done += per_dispatch) {
    const std::size_t n = std::min(per_dispatch, bytes - done);
    const std::size_t s = source_offset + done, d = destination_offset + done;
    const std::size_t s_bound = s / align * align, d_bound = d / align * align;
    GL(glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, source, static_cast<GLintptr>(s_bound),
                         static_cast<GLsizeiptr>(s - s_bound + n)));
    GL(glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 1, destination, static_cast<GLintptr>(d_bound),
                         static_cast<GLsizeiptr>(d - d_bound + n)));
    set_uniform(program, "src_first", (s - s_bound) / shape.element);
    set_uniform(program, "dst_first", (d - d_bound) / shape.element);
    set_uniform(program, "count", n / shape.element);
    GL(glDispatchCompute(sweep_groups(state, n / shape.element, shape.local), 1, 1));
  }
}

void unbind_copy_state() noexcept {
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, 0);
  glUseProgram(0);
}

void kernel_copy(ContextState& state, GLuint source, std::size_t source_offset, GLuint destination,
                 std::size_t destination_offset, std::size_t bytes, std::size_t chunk) {
  const int local = group_size(state.info);
  // uvec4 moves where both offsets sit alike within 16 bytes: the words before the first
  // whole uvec4 and after the last go by glCopyBufferSubData (at most 12 bytes each).
  if ((source_offset - destination_offset) % 16 != 0) {
    dispatch_copies(state, {local, 4}, source, source_offset, destination, destination_offset,
                    bytes, chunk);
    return;
  }
  const std::size_t head = std::min(bytes, (16 - source_offset % 16) % 16);
  const std::size_t body = (bytes - head) / 16 * 16;
  const std::size_t tail = bytes - head - body;
  if (head > 0) copy_gl_buffer(source, source_offset, destination, destination_offset, head);
  if (body > 0) {
    dispatch_copies(state, {local, 16}, source, source_offset + head, destination,
                    destination_offset + head, body, chunk);
  }
  if (tail > 0) {
    copy_gl_buffer(source, source_offset + head + body, destination,
                   destination_offset + head + body, tail);
  }
}

}  // namespace

void copy_on_device(ContextState& state, GLuint source, std::size_t source_offset,
                    GLuint destination, std::size_t destination_offset, std::size_t bytes,
                    const DeviceCopyOptions& options) {
  if (bytes == 0) return;
  if (source_offset % 4 != 0 || destination_offset % 4 != 0 || bytes % 4 != 0) {
    throw ArgumentError("device copy: offsets and size must be whole 4-byte words");
  }
  // Shader writes to the source must land before the copy reads it, by either method.
  GL(glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT));
  // A later upload into either buffer waits for the copy (TransferEngine::note_gpu_use).
  state.engine_while_current().note_gpu_use(source);
  state.engine_while_current().note_gpu_use(destination);
  if (!use_kernel(state, bytes, options)) {
    copy_gl_buffer(source, source_offset, destination, destination_offset, bytes);
    return;
  }
  const std::size_t chunk = options.max_chunk_bytes > 0
                                ? options.max_chunk_bytes
                                : static_cast<std::size_t>(std::max<std::int64_t>(
                                      0, state.info.max_shader_storage_block_size));
  try {
    kernel_copy(state, source, source_offset, destination, destination_offset, bytes, chunk);
  } catch (...) {
    unbind_copy_state();
    glGetError();
    throw;
  }
  unbind_copy_state();
  // The destination may next be read as storage, texels, vertices, by a copy or a mapping.
  GL(glMemoryBarrier(GL_ALL_BARRIER_BITS));
}

}  // namespace gpgpu::detail
