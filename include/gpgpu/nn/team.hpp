// gpgpu/nn/team.hpp — the processes one training run spans, as the training loop sees them
// (data-parallel training: each process trains on its shard of every global batch).
//
//   auto team = gpgpu::nn::one_process();          // or gpgpu::nn::MpiTeam (gpgpu/nn/mpi.hpp)
//   gpgpu::Context ctx({.device = team->device("auto")});
//   team->join(model, options);                    // shard, gradient averaging, rank 0's weights
//   gpgpu::nn::Trainer trainer(model, device_train, options);
//   auto epoch = gpgpu::nn::combine(*team, trainer.run_epoch());      // the whole batch's stats
//   auto eval = gpgpu::nn::evaluate(*team, model, device_test_part);  // sharded, reduced
//
// gpgpu::nn knows no MPI: one_process() is the team of a single process, and gpgpu_nn_mpi
// (gpgpu/nn/mpi.hpp) implements the interface with gpgpu::mpi. Every call is collective
// (all ranks make it, in the same order) except rank(), size() and device().
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/nn/data.hpp"
#include "gpgpu/nn/loss.hpp"
#include "gpgpu/nn/model.hpp"
#include "gpgpu/nn/train.hpp"

namespace gpgpu::nn {

// The ranks a model trains across: what data-parallel training needs of MPI (nn/mpi.hpp
// makes one from a communicator; one_process() is the team of one).
class Team {
 public:
  virtual ~Team() = default;
  virtual int rank() const = 0;  // this rank, 0 .. size() - 1
  virtual int size() const = 0;  // the ranks
  // The device this rank's Context should use, given what the user asked for.
  virtual std::string device(const std::string& requested) = 0;
  // Readies `options` (global batch in options.batch) for this rank: its shard
  // (shard_of), the hooks that sum the shards' gradients weighted by shard size (so the
  // update is the whole batch's), and rank 0's parameters in `model` on every rank.
  virtual void join(Sequential& model, TrainOptions& options) = 0;
  // @{
  // Element-wise sums and maxima over the ranks, in place, on every rank.
  virtual void sum(std::span<double> values) = 0;
  virtual void max(std::span<double> values) = 0;
  // @}
  // Every rank's `part`, concatenated in rank order, on rank 0; empty on the others.
  virtual std::vector<int> gather(std::span<const int> part) = 0;
  // What summing the gradients across the ranks cost this rank so far, as one line (empty
  // for a single process): where a step's time goes, for the user tuning a run.
  virtual std::string timing() const { return ""; }
};

// The team of this process alone: rank 0 of 1; join() leaves the options as they are.
std::unique_ptr<Team> one_process();

// Rank `rank`'s contiguous part of `n` items split `size` ways, the first n % size parts
// one longer: the shard of a global batch, the part of a test set.
BatchShard shard_of(std::size_t n, int rank, int size);

// Samples [first, first + count) of `data`.
Dataset part_of(const Dataset& data, std::size_t first, std::size_t count);

// The ranks' epoch results as one: stats summed, the slowest rank's seconds, the mean of
// the loss curves weighted by shard (every rank reports at the same steps).
EpochResult combine(Team& team, EpochResult local);
// The ranks' progress reports as one (loss weighted by shard `share` of the batch, images
// per second of all ranks).
Progress combine(Team& team, Progress local, double share);

// A data set classified by the ranks together, `part` this rank's part of it (part_of with
// shard_of; at least one sample): loss and correct counts summed on every rank; the
// predictions and the confusion matrix of all parts, in rank order, on rank 0 only.
Evaluation evaluate(Team& team, Sequential& model, const DeviceDataset& part,
                    std::size_t batch = 1000);

}  // namespace gpgpu::nn
