#include "transfer/copy_lane.hpp"

#include "gl/context_state.hpp"
#include "gl/gl_buffer.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::detail {

std::unique_ptr<CopyLane> CopyLane::start(const ContextState& main, std::string& why) {
  SharedContextHandle context;
  try {
    context = make_shared_context(main);
  } catch (const Error& e) {
    why = e.what();
    return nullptr;
  }
  std::unique_ptr<CopyLane> lane(new CopyLane(main, std::move(context)));
  // The thread makes the context current first; a refusal there is a lane that cannot work.
  std::unique_lock lock(lane->mutex_);
  lane->changed_.wait(lock, [&] { return lane->done_; });
  lane->done_ = false;
  if (!lane->current_) {
    why = "the shared context cannot be made current on the copy thread";
    lock.unlock();
    return nullptr;  // ~CopyLane joins the thread, which has ended
  }
  return lane;
}

CopyLane::CopyLane(const ContextState& main, SharedContextHandle context)
    : main_(main), context_(std::move(context)) {
  thread_ = std::thread([this] { loop(); });
}

CopyLane::~CopyLane() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  context_.reset();
}

LaneFences CopyLane::issue(GLsync after, std::span<const LaneCopy> copies, bool thread_fence) {
  std::unique_lock lock(mutex_);
  after_ = after;
  copies_ = copies;
  thread_fence_ = thread_fence;
  error_ = nullptr;
  pending_ = true;
  changed_.notify_all();
  changed_.wait(lock, [&] { return done_; });
  done_ = false;
  ++batches_;
  if (error_) std::rethrow_exception(error_);
  return result_;
}

LaneFences CopyLane::run(GLsync after, std::span<const LaneCopy> copies, bool thread_fence) {
  if (after != nullptr) GL(glWaitSync(after, 0, GL_TIMEOUT_IGNORED));
  for (const LaneCopy& c : copies) {
    copy_gl_buffer(c.source, c.source_offset, c.destination, c.destination_offset, c.bytes);
  }
  LaneFences f;
  f.done = GL(glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0));
  if (f.done == nullptr) throw DriverError("glFenceSync returned no sync object (copy lane)");
  if (thread_fence) {
    try {
      f.thread = insert_thread_fence(main_);  // into this thread's context: the lane's
    } catch (...) {
      glDeleteSync(f.done);
      throw;
    }
  }
  // Submitted now: another context's glWaitSync on an unflushed fence could wait forever.
  GL(glFlush());
  return f;
}

void CopyLane::loop() {
  const bool current = make_shared_current(*context_);
  std::unique_lock lock(mutex_);
  current_ = current;
  done_ = true;
  changed_.notify_all();
  if (!current) return;
  for (;;) {
    changed_.wait(lock, [&] { return pending_ || stopping_; });
    if (!pending_) break;  // stopping, and no batch in hand
    pending_ = false;
    try {
      result_ = run(after_, copies_, thread_fence_);
    } catch (...) {
      result_ = {};
      error_ = std::current_exception();
    }
    done_ = true;
    changed_.notify_all();
  }
  lock.unlock();
  release_shared_current(*context_);
}

}  // namespace gpgpu::detail
