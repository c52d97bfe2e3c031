#include "transfer/device_pool.hpp"

#include <bit>
#include <limits>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::detail {

namespace {

// A lane's fence (shared by the temporaries of one run) has signalled; never throws.
bool lane_done(GlFence& fence) noexcept {
  try {
    return fence.signalled();
  } catch (...) {
    return true;  // unusable fence: as for the pool's own, the buffer is not
  }
}

}  // namespace

std::size_t DevicePool::size_class(std::size_t bytes) noexcept {
  if (bytes <= 256) return 256;
  const std::size_t step = std::max<std::size_t>(std::bit_floor(bytes) / 8, 256);
  return (bytes + step - 1) / step * step;
}

GLuint DevicePool::allocate(std::size_t capacity) {
  if (capacity > static_cast<std::size_t>(std::numeric_limits<GLsizeiptr>::max())) {
    throw LimitError(fmt::format("{} bytes do not fit a GL buffer size", capacity));
  }
  GLuint id = 0;
  GL(glGenBuffers(1, &id));
  GL(glBindBuffer(GL_COPY_WRITE_BUFFER, id));
  glBufferData(GL_COPY_WRITE_BUFFER, static_cast<GLsizeiptr>(capacity), nullptr, GL_DYNAMIC_COPY);
  const GLenum error = glGetError();
  while (glGetError() != GL_NO_ERROR) {
  }
  glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
  if (error != GL_NO_ERROR) {
    glDeleteBuffers(1, &id);
    glGetError();
    if (error == GL_OUT_OF_MEMORY) {
      throw OutOfMemoryError(
          fmt::format("the device has no room for a temporary buffer of {} bytes", capacity),
          error);
    }
    throw GLError(
        fmt::format("glBufferData({} bytes) failed with {}", capacity, gl_error_name(error)),
        error);
  }
  ++allocations_;
  return id;
}

PooledBuffer DevicePool::acquire(std::size_t bytes) {
  const std::size_t capacity = size_class(bytes);
  // The smallest idle buffer that holds the request without wasting more than half of it.
  // Only one whose last use has completed (its fence signalled).
  for (auto it = idle_.lower_bound(bytes); it != idle_.end() && it->first <= 2 * capacity; ++it) {
    Idle& idle = it->second;
    if (idle.fence != nullptr) {
      const GLenum status = glClientWaitSync(idle.fence, GL_SYNC_FLUSH_COMMANDS_BIT, 0);
      if (status == GL_TIMEOUT_EXPIRED) continue;
      glGetError();  // GL_WAIT_FAILED: the fence is unusable; the buffer is not
    }
    if (idle.after && !lane_done(*idle.after)) continue;
    release(idle, false);
    const PooledBuffer buffer{idle.id, it->first};
    idle_bytes_ -= it->first;
    idle_.erase(it);
    ++reuses_;
    ++in_use_;
    return buffer;
  }
  GLuint id = 0;
  try {
    id = allocate(capacity);
  } catch (const OutOfMemoryError&) {
    // Memory pressure: give the driver every idle buffer back and try once more.
    trim();
    id = allocate(capacity);
  }
  ++in_use_;
  return {id, capacity};
}

void DevicePool::recycle(PooledBuffer buffer, bool completed,
                         std::shared_ptr<GlFence> after) noexcept {
  if (buffer.id == 0) return;
  if (in_use_ > 0) --in_use_;
  if (idle_bytes_ + buffer.capacity > idle_limit_) {
    glDeleteBuffers(1, &buffer.id);
    glGetError();
    return;
  }
  GLsync fence = completed ? nullptr : glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  if (!completed && fence == nullptr)
    glGetError();  // then reused without waiting, as GL's order allows
  idle_.emplace(buffer.capacity, Idle{buffer.id, fence, completed ? nullptr : std::move(after)});
  idle_bytes_ += buffer.capacity;
}

void DevicePool::release(Idle& idle, bool with_buffer) noexcept {
  if (idle.fence != nullptr) glDeleteSync(idle.fence);
  idle.fence = nullptr;
  idle.after.reset();
  if (with_buffer) glDeleteBuffers(1, &idle.id);
  glGetError();
}

void DevicePool::trim() noexcept {
  for (auto& [capacity, idle] : idle_) release(idle, true);
  idle_.clear();
  idle_bytes_ = 0;
  ++trims_;
}

void DevicePool::abandon() noexcept {
  for (auto& [capacity, idle] : idle_) {
    if (idle.after) idle.after->abandon();
  }
  idle_.clear();
  idle_bytes_ = 0;
  in_use_ = 0;
}

void DevicePool::set_idle_limit(std::size_t bytes) noexcept {
  idle_limit_ = bytes;
  while (idle_bytes_ > idle_limit_ && !idle_.empty()) {
    auto largest = std::prev(idle_.end());
    release(largest->second, true);
    idle_bytes_ -= largest->first;
    idle_.erase(largest);
  }
}

}  // namespace gpgpu::detail
