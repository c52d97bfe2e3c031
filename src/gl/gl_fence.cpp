#include "gl/gl_fence.hpp"

#include "gpgpu/error.hpp"

namespace gpgpu::detail {

void GlFence::insert() {
  reset();
  sync_ = GL(glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0));
  if (sync_ == nullptr) throw GLError("glFenceSync returned no sync object", 0);
}

void GlFence::wait() {
  if (sync_ == nullptr) return;
  // One second per round; GL_SYNC_FLUSH_COMMANDS_BIT only on the first round, as the
  // specification asks (the flush has happened by then).
  GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;
  for (;;) {
    const GLenum status = GL(glClientWaitSync(sync_, flags, 1'000'000'000ull));
    if (status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED) break;
    if (status == GL_WAIT_FAILED) throw GLError("glClientWaitSync failed", 0);
    flags = 0;  // GL_TIMEOUT_EXPIRED: long work (a large copy on a slow device); keep waiting
  }
  reset();
}

bool GlFence::signalled() {
  if (sync_ == nullptr) return true;
  const GLenum status = GL(glClientWaitSync(sync_, GL_SYNC_FLUSH_COMMANDS_BIT, 0));
  if (status == GL_WAIT_FAILED) throw GLError("glClientWaitSync failed", 0);
  if (status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED) {
    reset();
    return true;
  }
  return false;
}

void GlFence::reset() noexcept {
  if (sync_ != nullptr) {
    glDeleteSync(sync_);
    glGetError();
    sync_ = nullptr;
  }
}

void wait_for_gpu() {
  GlFence fence;
  fence.insert();
  fence.wait();
}

}  // namespace gpgpu::detail
