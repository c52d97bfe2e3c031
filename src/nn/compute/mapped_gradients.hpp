// The compute engine's host copy of a step's gradients (Engine::stage_gradients and friends,
// plan/engine.hpp) in mapped memory: a HostBuffer, so that a copy either way is one GPU command
// (no staging chunks, no memcpy by a delivery thread) and the MPI reduction reads and writes
// it in place. Without GL_EXT_buffer_storage the HostBuffer is ordinary memory and the copies go
// through the TransferQueue's staging; the interface is the same.
//
// A step: request(first) queues the copy of [first, the last request's first) down;
// landed(first) tells (without blocking) whether [first, end) is in the array, completing the
// copies that are; commit(first, end) queues the upload of a final range; commit_rest()
// uploads what no commit covered; begin() starts the next step.
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

 private:
  struct Download {
    std::size_t first;  // the copy of [first, the previous download's first)
    PendingTransfer copy;
  };
  void upload(std::size_t first, std::size_t end);

  Buffer& gradients_;
  std::size_t count_;
  HostBuffer host_;
  TransferQueue queue_;
  std::vector<Download> downloads_;
  std::vector<PendingTransfer> uploads_;  // waited for before the array is written again
  std::vector<std::pair<std::size_t, std::size_t>> committed_;
  std::size_t staged_from_;  // [staged_from_, count_) has been asked for this step
};

}  // namespace gpgpu::nn::detail
