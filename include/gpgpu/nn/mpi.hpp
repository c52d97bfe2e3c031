// gpgpu/nn/mpi.hpp — data-parallel training across MPI ranks: gpgpu::nn's Team (team.hpp)
// made of gpgpu::mpi (CMake target gpgpu::nn_mpi, built when MPI is found).
//
//   gpgpu::mpi::Session session(argc, argv);
//   gpgpu::mpi::Communicator world;
//   gpgpu::nn::MpiTeam team(world);
//   gpgpu::Context ctx({.device = team.device("auto")});    // a GPU per rank
//   ... model.initialize(seed); options.batch = 512;      // the global batch
//   team.join(model, options);                            // rank r: its shard of each batch
//   gpgpu::nn::Trainer trainer(model, device_train, options);
//
// What join() sets up (docs/mpi.md, "Training across ranks"):
//   - the shard: rank r trains on samples shard_of(batch, r, N) of every global batch, in
//     the epoch's one shuffled order; augmentation keys on the sample, so each sample is
//     flipped and shifted as in one process;
//   - rank 0's parameters broadcast to every rank (identical starting weights whatever each
//     rank's initialisation was);
//   - the gradient sum: TrainOptions::gradients_ready hands each layer's finished gradients
//     to gpgpu::mpi::GradientBuckets, which scales them by shard / batch and starts the
//     bucket's MPI_Iallreduce while earlier layers run backward; gradient_hook waits for all
//     before the optimizer step. Every rank then applies the same update (the same summed
//     bits), and the update is the whole batch's up to float32 reordering.
// Not identical to one process: dropout masks (drawn per position in the rank's batch) and
// BatchNorm statistics (per shard, as DistributedDataParallel without SyncBatchNorm).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/mpi/communicator.hpp"
#include "gpgpu/mpi/gradient_buckets.hpp"
#include "gpgpu/nn/team.hpp"

namespace gpgpu::nn {

// The Team of the ranks of an MPI communicator: shards, bucketed gradient sums that overlap
// the backward pass, collectives (the manual at the top of this header).
class MpiTeam final : public Team {
 public:
  // The communicator must outlive the team; bucket_bytes: the gradient buckets' least size
  // (1 MB: the `cnn` net's 1.6 MB dense layer is then a bucket of its own, reduced while
  // both convolutions run backward; the rest of its 1.82 MB is the last bucket).
  explicit MpiTeam(const mpi::Communicator& comm, std::size_t bucket_bytes = std::size_t{1} << 20);
  ~MpiTeam() override;
  int rank() const override;
  int size() const override;
  std::string device(const std::string& requested) override;
  // Collective. Throws CollectiveError on every rank when the ranks' models differ in
  // their parameter counts or a shard would be empty (a global batch below N).
  void join(Sequential& model, TrainOptions& options) override;
  void sum(std::span<double> values) override;
  void max(std::span<double> values) override;
  std::vector<int> gather(std::span<const int> part) override;
  // Per training step, on this rank: from the first gradients' hand-over to the last
  // copy landing (the backward pass's GPU time, mostly), waiting for the sums, and the rest.
  std::string timing() const override;
  // The buckets of the last join() (null before): their ranges, how many started early.
  const mpi::GradientBuckets* buckets() const { return buckets_.get(); }

 private:
  const mpi::Communicator* comm_;
  std::size_t bucket_bytes_;
  std::shared_ptr<mpi::GradientBuckets> buckets_;
  struct StepClock;
  std::shared_ptr<StepClock> clock_;
};

}  // namespace gpgpu::nn
