// gpgpu/pending_transfer.hpp — the handle of a transfer that runs while you do other work.
//
//   auto up = queue.upload(buffer, host);        // returns once `host` may be reused
//   kernel.run({{"x", buffer}, ...});            // ordered after the upload by GL itself
//   auto down = queue.download(buffer, result);  // `result` is filled by wait()
//   down.wait();
//
// wait() blocks until the transfer is complete (for a download: the data is in your array).
// A handle is waited once; a second wait() throws TransferError. Destroying a handle that
// was not waited waits for it (errors are swallowed then: call wait() to see them), so a
// download never writes into an array after its owner stopped waiting for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "gpgpu/error.hpp"

namespace gpgpu {

namespace detail {
class AsyncSource;  // whatever issued the transfer: a TransferQueue, a Context's engine
}

// A transfer handle was misused: waited twice, or empty (default-constructed, moved from).
class TransferError : public Error {
 public:
  using Error::Error;
};

// The handle of an asynchronous transfer (TransferQueue, Buffer::download_async): wait() for
// it before touching the host array. Dropped without wait(), it completes the transfer in
// its destructor. Move-only.
class PendingTransfer {
 public:
  PendingTransfer() = default;  // an empty handle: wait() throws TransferError
  // For the library's own use: transfer `id` of `source`, of `bytes` bytes.
  PendingTransfer(std::shared_ptr<detail::AsyncSource> source, std::uint64_t id, std::size_t bytes);
  ~PendingTransfer();
  // @{
  // Moves the handle; the moved-from one is empty.
  PendingTransfer(PendingTransfer&& other) noexcept;
  PendingTransfer& operator=(PendingTransfer&& other) noexcept;
  // @}
  PendingTransfer(const PendingTransfer&) = delete;
  PendingTransfer& operator=(const PendingTransfer&) = delete;

  // Blocks until the transfer has completed; a download's data is then in the host array.
  // Throws TransferError when called twice or on an empty handle, and Error when the
  // Context was released meanwhile.
  void wait();
  // True when wait() would not have to wait for the GPU. Never blocks.
  bool ready() const;
  bool waited() const noexcept { return waited_; }  // wait() has returned
  bool empty() const noexcept { return state_ == nullptr && !waited_; }  // no transfer
  std::size_t bytes() const noexcept { return bytes_; }  // the transfer's size

 private:
  void finish_quietly() noexcept;

  std::shared_ptr<detail::AsyncSource> state_;
  std::uint64_t id_ = 0;
  std::size_t bytes_ = 0;
  bool waited_ = false;
};

}  // namespace gpgpu
