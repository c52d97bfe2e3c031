// The Buffer allreduce's host staging in mapped memory, for a caller that names the Buffer's
// Context (AllreduceOptions::context).
//
// Through the data path a Buffer's elements reach ordinary host memory by a GPU copy into the
// data path's staging and a host copy out of it, and go back the same way: on two H200s
// `gpgpu-mpi-rates` measured 0.23 ms down and 0.25 ms up for 1 MB. Into a mapped HostBuffer
// it is one GPU copy each way (0.05 and 0.065 ms), MPI reduces the pinned pages in place, and
// the copy back needs no wait: GL runs it before anything queued later, the next allreduce's
// copy down included. The HostBuffers are kept with the Context (an attachment), so repeated
// allreduces reuse them; an allreduce in flight holds one (a Lease), so several may overlap.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "gpgpu/context.hpp"
#include "gpgpu/host_buffer.hpp"
#include "gpgpu/pending_transfer.hpp"
#include "gpgpu/transfer_queue.hpp"
#include "mpi/best_fit_shelf.hpp"
#include "mpi/words.hpp"

namespace gpgpu::mpi::detail {

class MappedStaging {
  struct Block {
    HostBuffer host;
    std::vector<PendingTransfer> uploads;  // copies back that may still be reading it
    std::size_t capacity() const noexcept { return host.size(); }
  };
  // What the leases share with the Context's attachment: a lease may end after the Context
  // (its Buffer outliving it), and then gives its block back here, not to freed memory.
  struct Shelf {
    explicit Shelf(const Context& context) : queue(context) {}
    TransferQueue queue;
    BestFitShelf<Block> blocks;
  };

 public:
  explicit MappedStaging(const Context& context)
      : context_(&context), shelf_(std::make_shared<Shelf>(context)) {}
  // The staging kept with `context`, made on first use.
  static MappedStaging& of(const Context& context);

  class Lease {
   public:
    Lease(std::shared_ptr<Shelf> shelf, Block block)
        : shelf_(std::move(shelf)), block_(std::move(block)) {}
    ~Lease();
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

    Word* data() { return static_cast<Word*>(block_.host.data()); }
    PendingTransfer download(const Buffer& from, std::size_t first, std::size_t count);
    // Queues the copy of [first, first + count) back into `to`, without waiting for it.
    void upload(Buffer& to, std::size_t first, std::size_t count);

   private:
    std::shared_ptr<Shelf> shelf_;
    Block block_;
  };
  // Mapped memory for `count` elements of `type` (uninitialised).
  Lease take(ElementType type, std::size_t count);

 private:
  const Context* context_;
  std::shared_ptr<Shelf> shelf_;
};

}  // namespace gpgpu::mpi::detail
