// GradientBuckets: bucketed, overlapped gradient sums (gpgpu/mpi/gradient_buckets.hpp).
#include "gpgpu/mpi/gradient_buckets.hpp"

#include <algorithm>
#include <exception>
#include <limits>

#include <fmt/format.h>

#include "gpgpu/mpi/collectives.hpp"

namespace gpgpu::mpi {

namespace {

// Whole layers from the top down, each bucket at least `elements` long (the last may be
// shorter); every bucket fits an MPI count (int).
std::vector<std::pair<std::size_t, std::size_t>> cut(std::size_t count,
                                                     std::vector<std::size_t> starts,
                                                     std::size_t elements) {
  starts.push_back(0);
  std::sort(starts.begin(), starts.end(), std::greater<>());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  const auto limit = static_cast<std::size_t>(std::numeric_limits<int>::max());
  std::size_t hi = count;
  for (const std::size_t s : starts) {
    if (s >= hi) continue;
    if (hi - s >= elements || s == 0 || hi - s >= limit) {
      for (std::size_t top = hi; top > s;) {  // a layer beyond an int count: split it
        const std::size_t lo = top - std::min(top - s, limit);
        ranges.emplace_back(lo, top);
        top = lo;
      }
      hi = s;
    }
  }
  return ranges;
}

}  // namespace

GradientBuckets::GradientBuckets(const Communicator& comm, std::size_t count,
                                 std::vector<std::size_t> layer_starts, float weight,
                                 std::size_t bucket_bytes)
    : count_(count), weight_(weight) {
  std::string error;
  for (const std::size_t s : layer_starts) {
    if (s > count) error = fmt::format("a layer starts at {}, past the {} gradients", s, count);
  }
  if (!error.empty()) layer_starts.clear();
  ranges_ = cut(count, layer_starts, std::max<std::size_t>(bucket_bytes / sizeof(float), 1));
  // The same buckets on every rank, else the reductions would pair unlike ranges.
  std::vector<std::uint64_t> mine{count};
  for (const auto& [lo, hi] : ranges_) mine.push_back(lo);
  std::vector<std::uint64_t> root = mine;
  broadcast(comm, root, 0);
  if (error.empty() && root != mine) {
    error = fmt::format("{} gradients in {} buckets where rank 0 has {} in {}", count,
                        ranges_.size(), root.at(0), root.size() - 1);
  }
  comm.agree(error.empty() ? "" : "gradient buckets: " + error);
  MPI_Comm_dup(comm.get(), &comm_);
  requests_.assign(ranges_.size(), MPI_REQUEST_NULL);
  reported_.assign(ranges_.size(), 0);
}

GradientBuckets::~GradientBuckets() {
  // While an exception unwinds the job is failing (run_or_abort ends it): waiting here
  // could hang on a rank that left.
  if (std::uncaught_exceptions() == 0) {
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  }
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

bool GradientBuckets::would_start(std::size_t ready_from) const noexcept {
  return next_ < ranges_.size() && ranges_[next_].first >= ready_from;
}

void GradientBuckets::summed(std::size_t b) {
  reported_[b] = 1;
  if (summed_) summed_(ranges_[b].first, ranges_[b].second);
}

void GradientBuckets::progress() {
  // Open MPI moves non-blocking collectives on inside MPI calls only.
  for (std::size_t b = 0; b < next_; ++b) {
    if (reported_[b]) continue;
    int done = 0;
    MPI_Test(&requests_[b], &done, MPI_STATUS_IGNORE);
    if (done) summed(b);
  }
}

void GradientBuckets::start(std::size_t b, std::span<float> gradients) {
  const auto [lo, hi] = ranges_[b];
  float* p = gradients.data() + lo;
  if (weight_ != 1.0f) std::transform(p, p + (hi - lo), p, [&](float g) { return g * weight_; });
  MPI_Iallreduce(MPI_IN_PLACE, p, static_cast<int>(hi - lo), MPI_FLOAT, MPI_SUM, comm_,
                 &requests_[b]);
}

void GradientBuckets::ready(std::size_t ready_from, std::span<float> gradients) {
  if (gradients.size() != count_) {
    throw SizeMismatchError(fmt::format("gradient buckets: {} gradients where {} were set up",
                                        gradients.size(), count_));
  }
  while (next_ < ranges_.size() && ranges_[next_].first >= ready_from) start(next_++, gradients);
  started_early_ = next_;
  progress();
}

void GradientBuckets::finish(std::span<float> gradients) {
  if (gradients.size() != count_) {
    throw SizeMismatchError(fmt::format("gradient buckets: {} gradients where {} were set up",
                                        gradients.size(), count_));
  }
  while (next_ < ranges_.size()) start(next_++, gradients);
  for (std::size_t b = 0; b < ranges_.size(); ++b) {
    if (reported_[b]) continue;
    MPI_Wait(&requests_[b], MPI_STATUS_IGNORE);
    summed(b);
  }
  std::fill(reported_.begin(), reported_.end(), 0);
  next_ = 0;
}

}  // namespace gpgpu::mpi
