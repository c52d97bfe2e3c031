// Internal: device buffers for run temporaries, kept by the Context and reused.
//
// A run that binds host arrays needs device memory for them. Allocating it per run
// (glBufferData) costs more than the copy for small arrays and fragments the driver's heap
// for large ones; the pool hands out idle buffers of a suitable size instead. A buffer goes
// back to the pool as soon as the commands that use it are issued, with a fence behind
// them, and is handed out again only once that fence has signalled: GL's command order
// alone did not keep a later run's upload out of a temporary that an earlier dispatch was
// still reading on NVIDIA's driver (matmul's packing runs got the next operand's values). Idle
// memory is bounded (DataPathOptions::pool_bytes); trim() frees it all, and acquire() trims and
// retries once when the driver reports GL_OUT_OF_MEMORY.
#pragma once

#include <cstddef>
#include <map>
#include <memory>

#include "gl/gl.hpp"
#include "gl/gl_fence.hpp"

namespace gpgpu::detail {

struct PooledBuffer {
  GLuint id = 0;
  std::size_t capacity = 0;  // bytes; at least what was asked for
};

class DevicePool {
 public:
  explicit DevicePool(std::size_t idle_limit) : idle_limit_(idle_limit) {}
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;

  // A buffer of at least `bytes` (the context must be current). Throws OutOfMemoryError
  // when even an emptied pool leaves the driver without memory.
  PooledBuffer acquire(std::size_t bytes);
  // Returns a buffer for reuse (or frees it beyond the idle limit). Never throws. Unless
  // `completed` (the caller waited for the commands that used it), it is fenced, and reused
  // once the fence has signalled — and `after` too, when given (a copy lane's fence after the
  // last copy out of the buffer, which the Context's own fence does not cover).
  void recycle(PooledBuffer buffer, bool completed = false,
               std::shared_ptr<GlFence> after = nullptr) noexcept;
  // Frees every idle buffer (the context must be current).
  void trim() noexcept;
  // Forgets every buffer without deleting: the context is gone, and took them with it.
  void abandon() noexcept;
  void set_idle_limit(std::size_t bytes) noexcept;

  std::size_t idle_limit() const noexcept { return idle_limit_; }
  std::size_t idle_buffers() const noexcept { return idle_.size(); }
  std::size_t idle_bytes() const noexcept { return idle_bytes_; }
  std::size_t in_use() const noexcept { return in_use_; }
  std::size_t allocations() const noexcept { return allocations_; }
  std::size_t reuses() const noexcept { return reuses_; }
  std::size_t trims() const noexcept { return trims_; }

  // The capacity a request of `bytes` is rounded up to: eighths of a power of two (at most
  // 12.5% more than asked), at least 256 bytes.
  static std::size_t size_class(std::size_t bytes) noexcept;

 private:
  GLuint allocate(std::size_t capacity);

  struct Idle {
    GLuint id = 0;
    GLsync fence = nullptr;          // after the last commands that used it; null: free now
    std::shared_ptr<GlFence> after;  // a copy lane's last copy out of it, if any
  };
  // Deletes the fence (and the buffer when `with_buffer`); the context must be current.
  static void release(Idle& idle, bool with_buffer) noexcept;

  std::multimap<std::size_t, Idle> idle_;  // capacity -> buffer
  std::size_t idle_limit_;
  std::size_t idle_bytes_ = 0;
  std::size_t in_use_ = 0;
  std::size_t allocations_ = 0;
  std::size_t reuses_ = 0;
  std::size_t trims_ = 0;
};

}  // namespace gpgpu::detail
