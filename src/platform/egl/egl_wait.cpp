// The EGL platform's waits (gl/platform.hpp): GL fence syncs, and EGL 1.5 fences for the
// transfer engine's delivery thread.
#include "gl/gl_fence.hpp"

#include <algorithm>

#include "gpgpu/error.hpp"
#include "platform/egl/egl.hpp"

namespace gpgpu::detail {

namespace {

// Before the host blocks on (or polls) a fence, everything queued is submitted, not only
// the commands before the fence: NVIDIA's GL_SYNC_FLUSH_COMMANDS_BIT submits up to the fence,
// so work queued after it to overlap the wait sat in the driver until the next flush
// (2 x H200, earth level 9 over two ranks: the GPU idled through each halo swap's MPI wait;
// 1,850 -> 2,034 steps/s once flushed; docs/mpi.md). glFlush with nothing queued is a no-op.
void submit_queued() {
  GL(glFlush());
}

}  // namespace

void GlFence::wait() {
  if (sync_ == nullptr) return;
  submit_queued();
  // One second per round; GL_SYNC_FLUSH_COMMANDS_BIT only on the first round, as the
  // specification asks (the flush has happened by then).
  GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;
  for (;;) {
    const GLenum status = GL(glClientWaitSync(sync_, flags, 1'000'000'000ull));
    if (status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED) break;
    if (status == GL_WAIT_FAILED) throw DriverError("glClientWaitSync failed");
    flags = 0;  // GL_TIMEOUT_EXPIRED: long work (a large copy on a slow device); keep waiting
  }
  reset();
}

bool GlFence::wait_until(std::chrono::steady_clock::time_point deadline) {
  if (sync_ == nullptr) return true;
  submit_queued();
  GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(
        deadline - std::chrono::steady_clock::now());
    // Slices of at most a second, so that a driver that rounds long timeouts cannot
    // oversleep the deadline by much.
    const auto slice = std::clamp<std::int64_t>(left.count(), 0, 1'000'000'000);
    const GLenum status = GL(glClientWaitSync(sync_, flags, static_cast<GLuint64>(slice)));
    if (status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED) {
      reset();
      return true;
    }
    if (status == GL_WAIT_FAILED) throw DriverError("glClientWaitSync failed");
    flags = 0;
    if (slice == 0 || std::chrono::steady_clock::now() >= deadline) return false;
  }
}

bool GlFence::signalled() {
  if (sync_ == nullptr) return true;
  submit_queued();
  const GLenum status = GL(glClientWaitSync(sync_, GL_SYNC_FLUSH_COMMANDS_BIT, 0));
  if (status == GL_WAIT_FAILED) throw DriverError("glClientWaitSync failed");
  if (status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED) {
    reset();
    return true;
  }
  return false;
}

void wait_for_gpu() {
  GlFence fence;
  fence.insert();
  fence.wait();
}

ThreadFence insert_thread_fence(const ContextState& state) {
  refuse_without(state.native && state.native->has_egl_fences, state,
                 "a fence another thread waits for", "EGL 1.5 fences (eglCreateSync) are missing");
  EGLSync fence = eglCreateSync(state.native->display, EGL_SYNC_FENCE, nullptr);
  if (fence == EGL_NO_SYNC) throw_egl("eglCreateSync(EGL_SYNC_FENCE)");
  return fence;
}

bool wait_thread_fence(const ContextState& state, ThreadFence fence) noexcept {
  return eglClientWaitSync(state.native->display, fence, 0, EGL_FOREVER) == EGL_CONDITION_SATISFIED;
}

void delete_thread_fence(const ContextState& state, ThreadFence fence) noexcept {
  if (fence != nullptr) eglDestroySync(state.native->display, fence);
}

}  // namespace gpgpu::detail
