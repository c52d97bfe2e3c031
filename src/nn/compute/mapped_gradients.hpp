// The compute engine's host copy of a step's gradients (Engine::stage_gradients and friends,
// plan/engine.hpp) in mapped memory: a HostBuffer, so that a copy either way is one GPU command
// (no staging chunks, no memcpy by a delivery thread) and the MPI reduction reads and writes
// it in place. Without GL_EXT_buffer_storage the HostBuffer is ordinary memory and the copies go
// through the TransferQueue's staging; the interface is the same.
//
// A step: request(first) queues the copy of [first, the last request's first) down;
// landed(first) tells (without blocking) whether [first, end) is in the array, completing the
// copies that are; commit(first, end) hands back a final range; commit_rest() the rest;
// begin() starts the next step.
//
// Nothing goes back up where the array is mapped and was staged whole: the optimizer's update
// then reads the final gradients here itself, over the bus (final(), host()). Their uploads
// were copies in GL's one queue, after the backward pass and before the update: on two H200s
// (`cnn`, global batch 512) the update's wait after the last sum fell from 0.10 to 0.07 ms and
// the sum's wait from 0.07-0.14 to 0.02-0.06 ms, 1.59x -> 1.62x of one process (docs/mpi.md).
// Otherwise (unmapped memory, or part of the array never staged) commit() and commit_rest()
// upload, and the update reads the device's gradients.
#pragma once

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/host_buffer.hpp"
#include "gpgpu/pending_transfer.hpp"
#include "gpgpu/transfer_queue.hpp"

namespace gpgpu::nn::detail {

class MappedGradients {
 public:
  MappedGradients(const Context& context, Buffer& gradients, std::size_t count);

  void begin();
  std::span<float> array() { return host_.span<float>().first(count_); }
  void request(std::size_t first);
  bool landed(std::size_t first);
  std::span<float> stage(std::size_t first);  // request, then wait for every copy
  void commit(std::size_t first, std::size_t end);
  void commit_rest();
  // After commit_rest() without uploads: the update reads the gradients from host() (false
  // again from begin()).
  bool final() const noexcept { return final_; }
  // A backward pass wrote the device's gradients: the host copy is no longer what they hold.
  void device_written() noexcept { final_ = false; }
  const HostBuffer& host() const noexcept { return host_; }

 private:
  struct Download {
    std::size_t first;  // the copy of [first, the previous download's first)
    PendingTransfer copy;
  };
  void upload(std::size_t first, std::size_t end);
  bool read_in_place() const noexcept;  // mapped, and the whole array staged this step

  Buffer& gradients_;
  std::size_t count_;
  HostBuffer host_;
  TransferQueue queue_;
  std::vector<Download> downloads_;
  std::vector<PendingTransfer> uploads_;  // waited for before the array is written again
  std::vector<std::pair<std::size_t, std::size_t>> committed_;
  std::size_t staged_from_;  // [staged_from_, count_) has been asked for this step
  bool final_ = false;       // this step's gradients are read from host_
};

}  // namespace gpgpu::nn::detail
