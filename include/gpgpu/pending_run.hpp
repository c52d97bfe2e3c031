// gpgpu/pending_run.hpp — a kernel run (or a transfer) still in progress.
//
//   auto run = kernel.run_async({{"x", x_host}, {"y", y_host}});  // x_host may be reused now
//   ...                                                           // upload the next batch
//   run.wait();                                                   // y_host holds the result
//
// A *_async call checks its arguments and queues everything before it returns: host inputs
// are copied (into staging or the driver) by then, so you may reuse or free them at once.
// Host outputs are written by wait(): keep them alive and untouched until it returns.
// Handles are independent: wait them in any order. A handle is waited once (a second wait()
// throws TransferError, as does an empty or moved-from one). Destroying a handle that was
// not waited waits for it (errors are swallowed then), so no result lands in an array after
// its handle is gone. After Context::release(), wait() throws gpgpu::Error saying so.
#pragma once

#include <cstdint>
#include <memory>

#include "gpgpu/pending_transfer.hpp"

namespace gpgpu {

// The handle of an asynchronous kernel run (run_async) or download: wait() for it before
// touching the host outputs. Dropped without wait(), it completes the run in its destructor.
// Move-only.
class PendingRun {
 public:
  PendingRun() = default;  // empty: wait() throws TransferError
  // For the library's own use: operation `id` of `source`.
  PendingRun(std::shared_ptr<detail::AsyncSource> source, std::uint64_t id);
  ~PendingRun();
  // @{
  // Moves the handle; the moved-from one is empty.
  PendingRun(PendingRun&& other) noexcept;
  PendingRun& operator=(PendingRun&& other) noexcept;
  // @}
  PendingRun(const PendingRun&) = delete;
  PendingRun& operator=(const PendingRun&) = delete;

  // Blocks until the run is complete and its host outputs are written.
  void wait();
  // True when wait() would not block on the GPU. Never blocks.
  bool ready() const;
  bool waited() const noexcept { return waited_; }  // wait() has returned
  bool empty() const noexcept { return source_ == nullptr && !waited_; }  // no operation

 private:
  void finish_quietly() noexcept;

  std::shared_ptr<detail::AsyncSource> source_;
  std::uint64_t id_ = 0;
  bool waited_ = false;
};

}  // namespace gpgpu
