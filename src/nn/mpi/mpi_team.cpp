// MpiTeam: data-parallel training on gpgpu::mpi (gpgpu/nn/mpi.hpp).
#include "gpgpu/nn/mpi.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

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

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

// Where a step's time goes on this rank: from the first gradients handed over to the hook
// before the update (backward's GPU time and the copies), inside that hook (the sums still
// travelling), and from its end to the next step's first hand-over (the upload, the update,
// the next forward pass queued). Medians: the gaps between epochs hold evaluations.
struct MpiTeam::StepClock {
  Clock::time_point first{}, hook_end{};
  bool in_step = false;
  std::vector<double> backward, waiting, rest;

  void handed_over() {
    if (in_step) return;
    const auto now = Clock::now();
    if (!backward.empty()) rest.push_back(seconds(hook_end, now));
    first = now;
    in_step = true;
  }
  void hook(Clock::time_point entered) {
    hook_end = Clock::now();
    backward.push_back(seconds(first, entered));
    waiting.push_back(seconds(entered, hook_end));
    in_step = false;
    if (backward.size() > kept) {  // the latest steps are what a long run is now
      for (auto* v : {&backward, &waiting, &rest}) v->erase(v->begin(), v->begin() + kept / 2);
    }
  }
  static constexpr std::size_t kept = 8192;
  static double median_ms(std::vector<double> v) {
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return 1e3 * v[v.size() / 2];
  }
};

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
    std::size_t requested = SIZE_MAX;    // the ready_from whose copy is on its way
    GradientStaging* staging = nullptr;  // the Trainer's, for the step under way
  };
  auto buckets = buckets_;
  auto step = std::make_shared<Step>();
  // A bucket summed goes back to the GPU at once, while later ones still travel.
  buckets_->on_summed([step](std::size_t first, std::size_t end) {
    if (step->staging != nullptr) step->staging->commit(first, end);
  });
  clock_ = std::make_shared<StepClock>();
  auto clock = clock_;
  options.gradients_ready = [buckets, step, clock](std::size_t from, GradientStaging& staging) {
    clock->handed_over();
    step->staging = &staging;
    if (step->requested == SIZE_MAX && buckets->would_start(from)) {
      staging.request(from);
      step->requested = from;
    }
    if (step->requested != SIZE_MAX && staging.landed(step->requested)) {
      buckets->ready(step->requested, staging.array());
      step->requested = SIZE_MAX;
    } else {
      buckets->progress();
    }
  };
  options.gradient_hook = [buckets, step, clock](std::span<float> gradients) {
    const auto entered = Clock::now();
    clock->handed_over();  // a net whose layers report nothing
    buckets->finish(gradients);
    step->requested = SIZE_MAX;
    step->staging = nullptr;
    clock->hook(entered);
  };
}

std::string MpiTeam::timing() const {
  if (!clock_ || clock_->backward.empty()) return "";
  const auto& c = *clock_;
  return fmt::format(
      "rank {}: a step's gradient sum, median of {} steps: {:.3f} ms from the first gradients "
      "to the last copy landed, {:.3f} ms waiting for the sums, {:.3f} ms to the next step's "
      "first gradients ({} buckets, {} started during backward)",
      comm_->rank(), c.backward.size(), StepClock::median_ms(c.backward),
      StepClock::median_ms(c.waiting), StepClock::median_ms(c.rest), buckets_->buckets(),
      buckets_->started_early());
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
