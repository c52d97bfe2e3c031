// gpgpu/mpi/gradient_buckets.hpp — summing a training step's gradients over the ranks in
// buckets, each started as soon as the backward pass has finished its layers (the design
// of PyTorch's DistributedDataParallel, written here on MPI_Iallreduce).
//
//   gpgpu::mpi::GradientBuckets buckets(world, count, layer_starts, weight);
//   // each step's backward pass: after each layer, gradients [ready_from, count) are final:
//   if (buckets.would_start(ready_from)) buckets.ready(ready_from, gradients);  // start them
//   else buckets.progress();
//   buckets.finish(gradients);              // before the optimizer step: all reduced
//
// Buckets are contiguous ranges of the flat gradient array, cut at layer starts: from the
// top (the last layers, whose gradients come first) down, a bucket takes whole layers
// until it holds at least `bucket_bytes`. ready() scales a bucket by this rank's `weight`
// (its share of the global batch: the sum over ranks is then the gradient of the whole
// batch) and starts its MPI_Iallreduce (in place, host memory, on a duplicate of the
// communicator); it also moves the earlier buckets on (MPI_Test), so the reductions run
// while the caller computes the earlier layers. finish() starts what is left and waits.
// on_summed() names a function called once per bucket and step as soon as its sum is
// known (from ready(), progress() or finish()): the caller can send it on at once.
//
// Every rank must make the same calls in the same order (non-blocking collectives match by
// order): the constructor checks that all ranks have the same count and layer starts (one
// CollectiveError on every rank otherwise). Precision: each element is the float32 sum of
// the ranks' weighted values in an order MPI chooses: |error| <= (N - 1) 2^-24 sum_r |w_r g_r|.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include <mpi.h>

#include "gpgpu/mpi/communicator.hpp"

namespace gpgpu::mpi {

// Sums a model's gradients over the ranks in buckets of whole layers, each started as soon
// as its layers' gradients are final, so the sums overlap the rest of the backward pass (the
// manual at the top of this header).
class GradientBuckets {
 public:
  // Collective. `layer_starts`: the offsets where layers' gradients begin (0 included or
  // not; any order); `count` gradients in all; `weight` multiplies this rank's gradients.
  GradientBuckets(const Communicator& comm, std::size_t count,
                  std::vector<std::size_t> layer_starts, float weight,
                  std::size_t bucket_bytes = std::size_t{1} << 20);
  ~GradientBuckets();
  GradientBuckets(const GradientBuckets&) = delete;
  GradientBuckets& operator=(const GradientBuckets&) = delete;

  // Whether gradients [ready_from, count) complete a bucket not started yet (the caller
  // then makes them current in host memory and calls ready()).
  bool would_start(std::size_t ready_from) const noexcept;
  // Gradients [ready_from, count) of `gradients` (count floats) are final: starts the
  // buckets inside, and moves the started ones on.
  void ready(std::size_t ready_from, std::span<float> gradients);
  // Moves the started reductions on without blocking.
  void progress();
  // Starts what is left, waits for all: `gradients` hold the weighted sums. Ends the step.
  void finish(std::span<float> gradients);
  // Called with [first, end) of each bucket once its sum is in the array.
  using Summed = std::function<void(std::size_t first, std::size_t end)>;
  void on_summed(Summed summed) { summed_ = std::move(summed); }  // sets the callback

  std::size_t buckets() const noexcept { return ranges_.size(); }  // how many buckets
  // [first, end) of bucket b; bucket 0 holds the last layers.
  std::pair<std::size_t, std::size_t> bucket(std::size_t b) const { return ranges_.at(b); }
  // Buckets of the last step started before finish(): those that overlapped backward.
  std::size_t started_early() const noexcept { return started_early_; }

 private:
  void start(std::size_t b, std::span<float> gradients);
  void summed(std::size_t b);

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::size_t count_ = 0;
  float weight_ = 1.0f;
  std::vector<std::pair<std::size_t, std::size_t>> ranges_;  // highest first
  std::vector<MPI_Request> requests_;
  std::vector<char> reported_;  // per bucket: summed_ called this step
  Summed summed_;
  std::size_t next_ = 0, started_early_ = 0;
};

}  // namespace gpgpu::mpi
