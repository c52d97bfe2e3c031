// Internal: a copy lane — a thread with a second GL context of the Context's share group that
// issues the transfer engine's buffer copies (docs/data-path.md, "Overlap").
//
// Commands of one GL context execute in order: with every copy in the Context's own context,
// the upload of run i+1 queues behind the kernel and the read-back of run i. Copies issued
// from a lane are ordered only by fences, so the driver may run the upload of chunk i+1, the
// kernel of chunk i and the read-back of chunk i-1 at the same time (the engine keeps one lane
// per direction). Order across contexts is by sync objects, which the share group shares:
//   - the lane waits (glWaitSync) for a fence of the Context's context before a read-back;
//   - the Context's context waits (glWaitSync) for the lane's fence before using an upload;
//   - the engine reuses staging and pooled buffers only after the lane's fences signal.
// The calling thread blocks only while the lane issues the commands (microseconds), never for
// the copies themselves.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>

#include "gl/gl.hpp"
#include "gl/platform.hpp"

namespace gpgpu::detail {

struct ContextState;

struct LaneCopy {
  GLuint source = 0;
  std::size_t source_offset = 0;
  GLuint destination = 0;
  std::size_t destination_offset = 0;
  std::size_t bytes = 0;
};

// What the lane inserted after a batch of copies (flushed, so other contexts and threads may
// wait for them). The caller owns both: delete `done` with glDeleteSync (any context of the
// group), `thread` with delete_thread_fence.
struct LaneFences {
  GLsync done = nullptr;         // a GL fence: wait with glWaitSync / glClientWaitSync
  ThreadFence thread = nullptr;  // a fence for a thread without a context (if asked)
};

class CopyLane {
 public:
  // A lane for `main`'s share group, its thread started; null with `why` set where a shared
  // context cannot be made (or made current on the lane's thread).
  static std::unique_ptr<CopyLane> start(const ContextState& main, std::string& why);
  // Stops the thread (after the batch in hand) and destroys the context.
  ~CopyLane();
  CopyLane(const CopyLane&) = delete;
  CopyLane& operator=(const CopyLane&) = delete;

  // Issues `copies` in order, after the GPU has passed `after` (a sync of the group; null: at
  // once), then fences them. Returns once they are submitted. Throws GLError (ContextError
  // when the lane's context was lost) with nothing issued after the failing copy.
  LaneFences issue(GLsync after, std::span<const LaneCopy> copies, bool thread_fence);

  std::size_t batches() const noexcept { return batches_; }

 private:
  CopyLane(const ContextState& main, SharedContextHandle context);
  void loop();
  LaneFences run(GLsync after, std::span<const LaneCopy> copies, bool thread_fence);

  const ContextState& main_;  // outlives the lane (its engine stops the lanes first)
  SharedContextHandle context_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  // The batch in hand (one at a time: the engine's calls come from the Context's one thread).
  bool pending_ = false, done_ = false, stopping_ = false, current_ = false;
  GLsync after_ = nullptr;
  std::span<const LaneCopy> copies_;
  bool thread_fence_ = false;
  LaneFences result_;
  std::exception_ptr error_;
  std::size_t batches_ = 0;
};

}  // namespace gpgpu::detail
