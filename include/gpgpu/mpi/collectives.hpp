// gpgpu/mpi/collectives.hpp — allreduce, broadcast and gather on host arrays and Buffers.
//
//   gpgpu::mpi::allreduce(world, grads, gpgpu::mpi::Reduction::Mean);   // a Buffer, in place
//   auto pending = gpgpu::mpi::allreduce_async(world, grads);          // ... queue more work
//   pending.wait();
//   gpgpu::mpi::broadcast(world, weights, 0);                          // rank 0's Buffer to all
//   std::vector<float> all = gpgpu::mpi::gather<float>(world, part);   // on rank 0
//
// Buffers travel through the host ("host-staged"): download through the Context's data
// path (or, given the Buffer's Context in AllreduceOptions::context, one GPU copy into mapped
// memory), MPI on host memory, upload. An allreduce is pipelined in chunks
// (AllreduceOptions::chunk_elements): every chunk's download is queued at once, each chunk's
// MPI_Iallreduce starts when its download lands and its upload when its reduction ends, so
// the device link and the network work at the same time. allreduce_async() returns once the
// downloads are queued: GPU work queued after it (a backward pass's earlier layers) runs
// while the chunks travel; test() moves the pipeline on without blocking, wait() finishes it.
// That is the shape data-parallel training needs (one allreduce per gradient bucket,
// started as soon as its layers' backward pass is queued).
//
// Checks. Each collective first agrees on what every rank passed (element type and count)
// and on each rank's own checks (a valid Buffer, a root in range) in one MPI_Allreduce of a
// few integers (~5 us on one node), and throws the same CollectiveError on every rank when
// something differs: never a hang or a truncated message.
//
// Precision. Sums of float32 add the ranks' values in an order MPI chooses (it may differ
// from a sum on one process): |error| <= (N - 1) 2^-24 sum_r |x_r| per element for N ranks;
// Mean divides the sum by N in float32 (one more rounding). Every rank receives the same
// bits (the MPI standard advises it without requiring it; the tests check it for Open MPI).
// Integer sums wrap modulo 2^32. Mean is for float32 only.
//
// Host arrays: T is float, double, std::int32_t, std::uint32_t, std::int64_t or
// std::uint64_t for allreduce; any trivially copyable T for broadcast and gather (sent as
// bytes, up to 2^31 - 1 bytes per rank for gather).
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/mpi/communicator.hpp"

namespace gpgpu::mpi {

// How the ranks' values combine: element-wise sum, mean (the sum over the ranks divided by
// their count), minimum or maximum.
enum class Reduction { Sum, Mean, Min, Max };

// ---- host arrays ----------------------------------------------------------------------------

// Element-wise over the ranks, in place, on every rank.
template <class T>
void allreduce(const Communicator& comm, std::span<T> values, Reduction op = Reduction::Sum);

namespace detail {
void broadcast_bytes(const Communicator& comm, std::vector<std::byte>& bytes, int root);
std::vector<std::byte> gather_bytes(const Communicator& comm, std::span<const std::byte> part,
                                    int root);
}  // namespace detail

// Root's `values` on every rank (the others' are resized to match).
template <class T>
void broadcast(const Communicator& comm, std::vector<T>& values, int root = 0) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::vector<std::byte> bytes;
  if (comm.rank() == root) {
    const auto* p = reinterpret_cast<const std::byte*>(values.data());
    bytes.assign(p, p + values.size() * sizeof(T));
  }
  detail::broadcast_bytes(comm, bytes, root);
  values.resize(bytes.size() / sizeof(T));
  if (!bytes.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
}
// Root's `text` on every rank.
std::string broadcast(const Communicator& comm, const std::string& text, int root = 0);

// Every rank's `part` (sizes may differ), concatenated in rank order, on `root`; empty on
// the other ranks.
template <class T>
std::vector<T> gather(const Communicator& comm, std::span<const T> part, int root = 0) {
  static_assert(std::is_trivially_copyable_v<T>);
  const auto all = detail::gather_bytes(comm, std::as_bytes(part), root);
  std::vector<T> out(all.size() / sizeof(T));
  if (!all.empty()) std::memcpy(out.data(), all.data(), all.size());
  return out;
}
// Every rank's `text`, in rank order, on `root`; empty on the other ranks.
std::vector<std::string> gather(const Communicator& comm, const std::string& text, int root = 0);

// ---- Buffers --------------------------------------------------------------------------------

// How a Buffer allreduce pipelines and stages its chunks.
struct AllreduceOptions {
  // Elements per pipeline chunk (1 .. 2^28): small enough that the first chunk's reduction
  // starts early, large enough that each MPI call moves a few MB.
  std::size_t chunk_elements = std::size_t{1} << 20;
  // The Buffer's Context, where the caller has it: the chunks then stage in mapped memory
  // that the Context keeps for later allreduces (one GPU copy each way, MPI in place on the
  // pinned pages) instead of going through the data path (a GPU copy and a host copy each
  // way). A Buffer made from another Context is refused on every rank.
  const Context* context = nullptr;
};

// An allreduce in flight. The Buffer and the Communicator must stay alive, and the Buffer
// untouched by other work, until done. Destroying an unfinished one waits for it, except while an
// exception unwinds (the job is failing then; its host staging is left to the process's end).
class PendingAllreduce {
 public:
  PendingAllreduce();  // an empty handle: done() is true
  ~PendingAllreduce();
  // @{
  // Moves the handle; the moved-from one is empty.
  PendingAllreduce(PendingAllreduce&&) noexcept;
  PendingAllreduce& operator=(PendingAllreduce&&) noexcept;
  // @}
  PendingAllreduce(const PendingAllreduce&) = delete;
  PendingAllreduce& operator=(const PendingAllreduce&) = delete;

  // Moves the pipeline on without blocking; true once the Buffer holds the result.
  bool test();
  // Blocks until the Buffer holds the result.
  void wait();
  bool done() const noexcept;  // the Buffer holds the result (or the handle is empty)

  struct State;

 private:
  explicit PendingAllreduce(std::unique_ptr<State> state);
  friend PendingAllreduce allreduce_async(const Communicator&, Buffer&, Reduction,
                                          const AllreduceOptions&);
  std::unique_ptr<State> state_;
};

// Collective: `buffer` (float32, int32 or uint32; the same type and length on every rank)
// reduced element-wise over the ranks, in place.
PendingAllreduce allreduce_async(const Communicator& comm, Buffer& buffer,
                                 Reduction op = Reduction::Sum,
                                 const AllreduceOptions& options = {});
// allreduce_async, then wait().
void allreduce(const Communicator& comm, Buffer& buffer, Reduction op = Reduction::Sum,
               const AllreduceOptions& options = {});

// Collective: root's Buffer contents into every rank's (same type and length everywhere).
void broadcast(const Communicator& comm, Buffer& buffer, int root = 0);

// Collective: every rank's Buffer (T its element type; lengths may differ), concatenated in
// rank order, on `root`; empty on the other ranks.
template <class T>
std::vector<T> gather(const Communicator& comm, const Buffer& buffer, int root = 0);

}  // namespace gpgpu::mpi
