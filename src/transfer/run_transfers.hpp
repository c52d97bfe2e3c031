// Internal: the host arrays of one operation (a kernel run, a Buffer or Texture download)
// moved through the Context's transfer engine, with the temporaries it needs; it ends
// waited (finish) or as a PendingRun (finish_async).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "gl/gl.hpp"
#include "gpgpu/pending_run.hpp"
#include "transfer/transfer_engine.hpp"

namespace gpgpu::detail {

struct ContextState;

// The host arrays of one run, moved through the Context's transfer engine.
class RunTransfers {
 public:
  explicit RunTransfers(ContextState& state);
  // Returns the temporaries to the pool; a ticket never finished is forgotten (nothing more
  // is written into the caller's arrays).
  ~RunTransfers();
  RunTransfers(const RunTransfers&) = delete;
  RunTransfers& operator=(const RunTransfers&) = delete;

  // Device memory for this run, from the pool (back to it when the run is issued).
  GLuint temporary(std::size_t bytes);
  // Host bytes into `buffer` from offset 0; returns once `data` may be reused. A temporary
  // of this run is filled through the engine's copy lanes where they are on.
  void upload(GLuint buffer, const void* data, std::size_t bytes);
  // Queues `bytes` of `buffer` for `out`, written by the time the run completes (from a
  // temporary of this run, at offset 0, through the copy lanes where they are on).
  void download(GLuint buffer, std::size_t offset, void* out, std::size_t bytes);
  // Queues `bytes` of `buffer` into host staging, then `commit(staging)` on completion (to
  // unpack a padded layout, split interleaved records, drop unused texel components).
  void download_then(GLuint buffer, std::size_t offset, std::size_t bytes,
                     std::function<void(const unsigned char*)> commit);
  // A step run on completion, after every download (a check that needs the GPU's answer).
  void then(std::function<void()> step);

  // Ends the run. finish() waits until every host output is written; finish_async() returns
  // a handle that does.
  void finish();
  PendingRun finish_async();

 private:
  Ticket ticket();
  bool is_temporary(GLuint buffer) const noexcept;

  std::shared_ptr<ContextState> state_;
  TransferEngine& engine_;
  std::vector<PooledBuffer> temporaries_;
  // The read-back lane's fence after this run's last copy (its copies execute in order):
  // temporaries go back to the pool behind it too.
  std::shared_ptr<GlFence> lane_done_;
  Ticket ticket_ = 0;
  // finish() waited for the run's read-backs: its temporaries are free without a fence.
  bool completed_ = false;
};

}  // namespace gpgpu::detail
