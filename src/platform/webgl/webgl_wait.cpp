// The WebGL2 platform's waits (gl/platform.hpp). A WebGL2 fence signals, and a query's
// result appears, only after the page has returned control to the browser, and
// glClientWaitSync with a timeout is an error there: a call that must wait for the GPU
// finishes all submitted work (glFinish). Fences are still real sync objects, so a fence
// seen later from the event loop reports the truth.
#include "gl/gl_fence.hpp"

#include "gl/context_state.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::detail {

void GlFence::wait() {
  if (sync_ == nullptr) return;
  GL(glFinish());
  reset();
}

bool GlFence::wait_until(std::chrono::steady_clock::time_point) {
  // The work is finished when glFinish returns; the caller compares the time it took.
  wait();
  return true;
}

bool GlFence::signalled() {
  wait();
  return true;
}

void wait_for_gpu() {
  GL(glFinish());
}

ThreadFence insert_thread_fence(const ContextState& state) {
  refuse_without(false, state, "a fence another thread waits for", "the page runs on one thread");
  return nullptr;
}

bool wait_thread_fence(const ContextState&, ThreadFence) noexcept {
  return false;
}

void delete_thread_fence(const ContextState&, ThreadFence) noexcept {}

}  // namespace gpgpu::detail
