// Internal: a GL fence sync object (glFenceSync) owned by RAII.
//
// Fences are how gpgpu learns that submitted GL work has finished without glFinish, which
// would wait for everything: the profiler's wall clock where timer queries are missing, and
// the transfer queue, which reuses a staging slot only after its own fence has signalled.
#pragma once

#include <chrono>
#include <cstdint>

#include "gl/gl.hpp"

namespace gpgpu::detail {

class GlFence {
 public:
  GlFence() = default;
  ~GlFence() { reset(); }
  GlFence(GlFence&& other) noexcept : sync_(other.sync_) { other.sync_ = nullptr; }
  GlFence& operator=(GlFence&& other) noexcept {
    if (this != &other) {
      reset();
      sync_ = other.sync_;
      other.sync_ = nullptr;
    }
    return *this;
  }
  GlFence(const GlFence&) = delete;
  GlFence& operator=(const GlFence&) = delete;
  // Takes ownership of a sync object made elsewhere (another context of the share group).
  static GlFence adopt(GLsync sync) noexcept {
    GlFence f;
    f.sync_ = sync;
    return f;
  }
  // The sync object (for glWaitSync), still owned by this fence; null when empty.
  GLsync get() const noexcept { return sync_; }

  // Marks the point in the command stream after everything submitted so far.
  void insert();
  // Blocks until the fence has signalled (flushing the commands before it, so the wait
  // cannot deadlock). An empty fence is already signalled.
  void wait();
  // Like wait(), but gives up at `deadline`: true when the fence signalled in time.
  bool wait_until(std::chrono::steady_clock::time_point deadline);
  // True when the work before the fence is complete; never blocks.
  bool signalled();
  bool empty() const noexcept { return sync_ == nullptr; }
  // Deletes the sync object; the caller's context must be current.
  void reset() noexcept;
  // Forgets the sync object without deleting it: its context is gone or not current.
  void abandon() noexcept { sync_ = nullptr; }

 private:
  GLsync sync_ = nullptr;
};

// Inserts a fence and waits for it: every command submitted so far has completed.
void wait_for_gpu();

}  // namespace gpgpu::detail
