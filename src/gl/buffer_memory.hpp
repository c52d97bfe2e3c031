// Internal: where a large Buffer's device memory comes from.
//
// NVIDIA's GL driver (580, H200) moves its own buffers of 512 MiB and more at about half the
// bandwidth of smaller ones (a copy: 2.2 against 3.9 TB/s), while memory that Vulkan allocates on
// the same GPU, imported into GL with GL_EXT_memory_object_fd, moves at 4.1 TB/s whatever its
// size, as CUDA's does (docs/memory.md, "Large buffers"). So Buffers of at least
// ContextOptions::imported_buffer_bytes take their memory from there, where the platform can
// (gl/platform.hpp: open_buffer_memory), and GL's own otherwise.
//
// A buffer over imported memory is immutable storage that cannot be mapped: read_gl_buffer and
// write_gl_buffer go through a temporary buffer for it (gl_buffer.cpp).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "gl/gl.hpp"

namespace gpgpu::detail {

struct ContextState;

// ContextOptions::imported_buffer_bytes's auto on GPUs: at 64 MiB (2^24 floats) both kinds of
// memory move at the same speed on an H200, and from 256 MiB the imported memory is faster.
inline constexpr std::size_t default_imported_buffer_bytes = std::size_t{64} << 20;

class BufferMemory {
 public:
  virtual ~BufferMemory() = default;
  // A GL buffer of `bytes` over newly allocated memory, or 0 with `why` set when the
  // allocation or the import failed (the caller then makes an ordinary buffer).
  virtual GLuint create_buffer(std::size_t bytes, std::string& why) = 0;
  // Frees the memory under `buffer`, which GL has just deleted; nothing for a buffer that
  // is not one of these.
  virtual void release(GLuint buffer) noexcept = 0;
  virtual bool owns(GLuint buffer) const noexcept = 0;
  virtual std::size_t live_buffers() const noexcept = 0;
};

// The buffer for a gpgpu::Buffer of `bytes` in `state`'s current context: over imported memory
// where ContextOptions::imported_buffer_bytes asks for it and the platform can, else an
// ordinary glBufferData buffer (GL_DYNAMIC_COPY). Throws OutOfMemoryError.
GLuint create_device_buffer(ContextState& state, std::size_t bytes);

// Whether buffer `id` of `state`'s context lies over imported memory.
bool is_imported_buffer(const ContextState& state, GLuint id) noexcept;
// read_gl_buffer and write_gl_buffer (gl_buffer.hpp) for any buffer of `state`'s current
// context: through a temporary ordinary buffer where `id` lies over imported memory.
void read_device_buffer(const ContextState& state, GLuint id, std::size_t offset, std::size_t bytes,
                        void* out);
void write_device_buffer(const ContextState& state, GLuint id, std::size_t offset,
                         std::size_t bytes, const void* data);

}  // namespace gpgpu::detail
