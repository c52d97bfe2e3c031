// Internal: what a PendingTransfer or PendingRun waits on — a TransferQueue's records or a
// Context's transfer engine — behind one interface, so that both handles work alike.
#pragma once

#include <cstdint>

namespace gpgpu::detail {

class AsyncSource {
 public:
  virtual ~AsyncSource() = default;
  // Blocks until operation `id` is complete and its host outputs written, then forgets it.
  // Makes the context current; throws Error when it was released, TransferError for an
  // unknown id.
  virtual void wait(std::uint64_t id) = 0;
  // Whether wait(id) would return without blocking on the GPU. Never blocks.
  virtual bool ready(std::uint64_t id) = 0;
  // wait(id) for destructors: never throws; does nothing when the context is gone.
  virtual void wait_quietly(std::uint64_t id) noexcept = 0;
};

}  // namespace gpgpu::detail
