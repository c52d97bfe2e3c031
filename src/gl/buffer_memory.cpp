#include "gl/buffer_memory.hpp"

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gl/gl_buffer.hpp"
#include "gl/gl_name.hpp"

namespace gpgpu::detail {

namespace {

// The source of large buffers' memory, opened on first use; null where there is none.
BufferMemory* buffer_memory(ContextState& state) {
  if (!state.buffer_memory_tried) {
    state.buffer_memory_tried = true;
    state.buffer_memory = open_buffer_memory(state, state.buffer_memory_why);
  }
  return state.buffer_memory.get();
}

}  // namespace

GLuint create_device_buffer(ContextState& state, std::size_t bytes) {
  if (state.imported_buffer_bytes != 0 && bytes >= state.imported_buffer_bytes) {
    if (BufferMemory* memory = buffer_memory(state)) {
      std::string why;
      if (const GLuint id = memory->create_buffer(bytes, why); id != 0) return id;
      state.buffer_memory_why = why;  // this Buffer only: the next one tries again
    }
  }
  return create_gl_buffer(bytes, nullptr, GL_DYNAMIC_COPY);
}

bool is_imported_buffer(const ContextState& state, GLuint id) noexcept {
  return state.buffer_memory != nullptr && state.buffer_memory->owns(id);
}

void read_device_buffer(const ContextState& state, GLuint id, std::size_t offset, std::size_t bytes,
                        void* out) {
  if (!is_imported_buffer(state, id)) return read_gl_buffer(id, offset, bytes, out);
  // Imported memory cannot be mapped: the GPU copies the range into a buffer that can.
  GL(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
  GlBuffer staging(nullptr, create_gl_buffer(bytes, nullptr, GL_STREAM_READ));
  copy_gl_buffer(id, offset, staging.id(), 0, bytes);
  read_gl_buffer(staging.id(), 0, bytes, out);
}

void write_device_buffer(const ContextState& state, GLuint id, std::size_t offset,
                         std::size_t bytes, const void* data) {
  if (!is_imported_buffer(state, id)) return write_gl_buffer(id, offset, bytes, data);
  // Imported memory is immutable storage that glBufferSubData may not write.
  GlBuffer staging(nullptr, create_gl_buffer(bytes, data, GL_STREAM_DRAW));
  copy_gl_buffer(staging.id(), 0, id, offset, bytes);
}

}  // namespace gpgpu::detail
