// gpgpu/transfer_queue.hpp — uploads and downloads that overlap with computing.
//
// Buffer::upload and Buffer::download are synchronous: the call returns when the copy is
// done. A TransferQueue splits a transfer into chunks that pass through staging memory, and
// returns a PendingTransfer at once, so the CPU can prepare the next chunk while the GPU
// copies or computes on the previous one:
//
//   gpgpu::TransferQueue queue(ctx);
//   std::vector<gpgpu::PendingTransfer> downloads;
//   for (std::size_t c = 0; c < chunks; ++c) {
//     queue.upload(in[c % 2], host_in.subspan(c * n, n));      // no wait: GL orders it
//     kernel.run({{"x", in[c % 2]}, {"y", out[c % 2]}});         // before this dispatch
//     downloads.push_back(queue.download(out[c % 2], host_out.subspan(c * n, n)));
//   }
//   for (auto& d : downloads) d.wait();
//
// Methods (TransferOptions::method):
//   PersistentMapped  staging memory created with glBufferStorageEXT and mapped once,
//                     persistently and coherently (GL_EXT_buffer_storage); fences tell
//                     when a slot may be reused. The default where the extension exists.
//   StagingBuffers    one staging buffer per slot, mapped with glMapBufferRange for each
//                     chunk, as pixel-buffer objects are used for asynchronous read-back.
//                     The default without GL_EXT_buffer_storage.
//   Direct            glBufferSubData to upload and glMapBufferRange on the Buffer itself to
//                     download: what Buffer::upload/download do; the transfer is complete
//                     when the call returns. For comparison.
//
// Ordering: GL runs commands in order, so a kernel dispatched after upload() sees the
// data, and a download issued after a dispatch sees its results; wait() is needed only
// before the host touches a download's array. upload() returns once the host array may be
// reused (it has been copied into staging); download()'s array must stay alive and
// untouched until wait(). A Buffer released while a transfer to or from it is pending
// stays intact until the GPU is done with it (GL defers the deletion), so the transfer
// completes; an upload into it is simply lost with it.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/host_buffer.hpp"
#include "gpgpu/pending_transfer.hpp"

namespace gpgpu {

class Context;
namespace detail {
class TransferState;
}

// How a TransferQueue moves data (the manual at the top of this header): through
// persistently mapped staging memory, through staging buffers, or with plain glBufferSubData
// and glGetBufferSubData; Auto picks the first the device supports.
enum class TransferMethod { Auto, PersistentMapped, StagingBuffers, Direct };

// "auto", "persistent-mapped", "staging-buffers" or "direct".
const char* to_string(TransferMethod method);

// How a TransferQueue stages and splits transfers.
struct TransferOptions {
  TransferMethod method = TransferMethod::Auto;  // (above)
  // Bytes of one staging slot; transfers larger than this are split into chunks.
  std::size_t chunk_bytes = std::size_t{8} << 20;
  // Staging slots per direction: how many chunks may be in flight at once.
  std::size_t slots = 4;
  // Threads that copy between your array and staging memory (PersistentMapped). One thread's
  // memcpy reaches 10-20 GB/s, below a PCIe 5 bus; several approach it. 1: the calling thread.
  std::size_t host_threads = 1;
};

// Asynchronous copies between host memory and Buffers, pipelined through staging memory in
// chunks (the manual at the top of this header). Move-only.
class TransferQueue {
 public:
  // Throws UnsupportedError if PersistentMapped is asked for on a device without
  // GL_EXT_buffer_storage, ArgumentError for zero chunk_bytes or slots.
  explicit TransferQueue(const Context& context, const TransferOptions& options = {});
  ~TransferQueue();
  // @{
  // Moves the queue; a moved-from TransferQueue must not be used.
  TransferQueue(TransferQueue&&) noexcept;
  TransferQueue& operator=(TransferQueue&&) noexcept;
  // @}
  TransferQueue(const TransferQueue&) = delete;
  TransferQueue& operator=(const TransferQueue&) = delete;

  // @{
  // Copies `source` into `destination` from element `offset` on.
  template <class T>
  PendingTransfer upload(Buffer& destination, std::span<const T> source, std::size_t offset = 0) {
    return upload_bytes(destination, element_type_of<T>(), source.data(), source.size(), offset);
  }
  template <class T>
  PendingTransfer upload(Buffer& destination, const std::vector<T>& source,
                         std::size_t offset = 0) {
    return upload(destination, std::span<const T>(source), offset);
  }
  // @}
  // @{
  // Copies elements [offset, offset + destination.size()) of `source` into `destination`
  // (filled by the time wait() returns).
  template <class T>
  PendingTransfer download(const Buffer& source, std::span<T> destination, std::size_t offset = 0) {
    return download_bytes(source, element_type_of<T>(), destination.data(), destination.size(),
                          offset);
  }
  template <class T>
  PendingTransfer download(const Buffer& source, std::vector<T>& destination,
                           std::size_t offset = 0) {
    return download(source, std::span<T>(destination), offset);
  }
  // @}
  // @{
  // Copies `count` elements (all of the source from its offset when count is 0) between a
  // HostBuffer and a Buffer: one GPU copy when the HostBuffer is mapped.
  PendingTransfer copy(const HostBuffer& source, Buffer& destination, std::size_t source_offset = 0,
                       std::size_t destination_offset = 0, std::size_t count = 0);
  PendingTransfer copy(const Buffer& source, HostBuffer& destination, std::size_t source_offset = 0,
                       std::size_t destination_offset = 0, std::size_t count = 0);
  // @}

  // Copies `count` elements (all of the source from its offset when count is 0) between two
  // Buffers on the device (a compute copy on GPUs, docs/memory.md); the device-copy
  // bandwidth reference.
  // Overlapping ranges of one Buffer are rejected (ArgumentError), as GL rejects them.
  PendingTransfer copy(const Buffer& source, Buffer& destination, std::size_t source_offset = 0,
                       std::size_t destination_offset = 0, std::size_t count = 0);

  // Waits for every transfer issued so far (their handles then return from wait() at once).
  void finish();

  TransferMethod method() const noexcept;           // the method in use (never Auto)
  const TransferOptions& options() const noexcept;  // as given

 private:
  PendingTransfer upload_bytes(Buffer& destination, ElementType type, const void* data,
                               std::size_t count, std::size_t offset);
  PendingTransfer download_bytes(const Buffer& source, ElementType type, void* data,
                                 std::size_t count, std::size_t offset);
  // A copy between GL buffers on the device, offsets and count in elements; `host_memory`
  // when one is a HostBuffer.
  PendingTransfer device_copy(unsigned source, std::size_t source_offset, unsigned destination,
                              std::size_t destination_offset, std::size_t count, bool host_memory);

  std::shared_ptr<detail::TransferState> state_;
};

}  // namespace gpgpu
