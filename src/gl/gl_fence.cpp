// GL fence syncs themselves, on every platform; how a fence is waited for is the platform's
// (src/platform/*/..._wait.cpp: glClientWaitSync natively, glFinish in WebGL2).
#include "gl/gl_fence.hpp"

#include "gpgpu/error.hpp"

namespace gpgpu::detail {

void GlFence::insert() {
  reset();
  sync_ = GL(glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0));
  if (sync_ == nullptr) throw DriverError("glFenceSync returned no sync object");
}

void GlFence::reset() noexcept {
  if (sync_ != nullptr) {
    glDeleteSync(sync_);
    glGetError();
    sync_ = nullptr;
  }
}

}  // namespace gpgpu::detail
