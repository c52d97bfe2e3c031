// MpiTeam: data-parallel training on gpgpu::mpi (gpgpu/nn/mpi.hpp).
#include "gpgpu/nn/mpi.hpp"

#include <fmt/format.h>

#include "gpgpu/mpi/collectives.hpp"
#include "gpgpu/mpi/device.hpp"

namespace gpgpu::nn {

namespace {

// Where each layer's trainable parameters start in the flat gradient array.
std::vector<std::size_t> layer_starts(const Sequential& model) {
  std::vector<std::size_t> starts;
  for (const auto& p : model.parameters()) {
    if (p.trainable) starts.push_back(p.offset);
  }
  return starts;
}

}  // namespace

MpiTeam::MpiTeam(const mpi::Communicator& comm, std::size_t bucket_bytes)
    : comm_(&comm), bucket_bytes_(bucket_bytes) {}
MpiTeam::~MpiTeam() = default;

int MpiTeam::rank() const {
  return comm_->rank();
}
int MpiTeam::size() const {
  return comm_->size();
}

std::string MpiTeam::device(const std::string& requested) {
  return mpi::device_for_rank(*comm_, requested);
}

void MpiTeam::join(Sequential& model, TrainOptions& options) {
  const int n = comm_->size();
  comm_->agree(options.batch < static_cast<std::size_t>(n)
                   ? fmt::format("a global batch of {} cannot be split over {} ranks (each "
                                 "needs at least one sample)",
                                 options.batch, n)
                   : "");
  options.shard = shard_of(options.batch, comm_->rank(), n);
  // Rank 0's weights everywhere (the count is agreed first: a broadcast of another length
  // would not fit).
  std::vector<float> values = model.parameter_values();
  std::vector<std::uint64_t> count{values.size()};
  mpi::broadcast(*comm_, count, 0);
  comm_->agree(count[0] != values.size()
                   ? fmt::format("the model has {} parameters where rank 0's has {}", values.size(),
                                 count[0])
                   : "");
  mpi::broadcast(*comm_, values, 0);
  model.set_parameter_values(values);
  // The buckets; the hooks share them (a Trainer copies its options).
  const float weight = static_cast<float>(static_cast<double>(options.shard.count) /
                                          static_cast<double>(options.batch));
  buckets_ = std::make_shared<mpi::GradientBuckets>(*comm_, model.trainable_parameter_count(),
                                                    layer_starts(model), weight, bucket_bytes_);
  // Host copies are queued only when a bucket can start, and the bucket starts once they
  // landed (on a GPU the copy waits for the layer's kernels; meanwhile the earlier layers'
  // kernels are queued and the started reductions move on).
  struct Step {
    std::size_t requested = SIZE_MAX;  // the ready_from whose copy is on its way
  };
  auto buckets = buckets_;
  auto step = std::make_shared<Step>();
  options.gradients_ready = [buckets, step](std::size_t from, GradientStaging& staging) {
    if (step->requested == SIZE_MAX && buckets->would_start(from)) {
      staging.request(from);
      step->requested = from;
    }
    if (step->requested != SIZE_MAX && staging.landed()) {
      buckets->ready(step->requested, staging.array());
      step->requested = SIZE_MAX;
    } else {
      buckets->progress();
    }
  };
  options.gradient_hook = [buckets, step](std::span<float> gradients) {
    buckets->finish(gradients);
    step->requested = SIZE_MAX;
  };
}

void MpiTeam::sum(std::span<double> values) {
  mpi::allreduce(*comm_, values, mpi::Reduction::Sum);
}

void MpiTeam::max(std::span<double> values) {
  mpi::allreduce(*comm_, values, mpi::Reduction::Max);
}

std::vector<int> MpiTeam::gather(std::span<const int> part) {
  return mpi::gather(*comm_, part, 0);
}

}  // namespace gpgpu::nn
