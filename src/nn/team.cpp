// The team of one process, and what data-parallel training computes on top of any Team
// (gpgpu/nn/team.hpp).
#include "gpgpu/nn/team.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::nn {

namespace {

class OneProcess final : public Team {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string device(const std::string& requested) override { return requested; }
  void join(Sequential&, TrainOptions&) override {}
  void sum(std::span<double>) override {}
  void max(std::span<double>) override {}
  std::vector<int> gather(std::span<const int> part) override { return {part.begin(), part.end()}; }
};

}  // namespace

std::unique_ptr<Team> one_process() {
  return std::make_unique<OneProcess>();
}

BatchShard shard_of(std::size_t n, int rank, int size) {
  if (size < 1 || rank < 0 || rank >= size) {
    throw ArgumentError(fmt::format("nn::shard_of: rank {} of {}", rank, size));
  }
  const auto r = static_cast<std::size_t>(rank), s = static_cast<std::size_t>(size);
  const std::size_t base = n / s, extra = n % s;
  return {r * base + std::min(r, extra), base + (r < extra ? 1 : 0)};
}

Dataset part_of(const Dataset& data, std::size_t first, std::size_t count) {
  if (first + count > data.count) {
    throw ArgumentError(fmt::format("nn::part_of: samples [{}, {}) of a data set of {}", first,
                                    first + count, data.count));
  }
  Dataset d = data;
  const std::size_t image = data.pixels_per_image();
  d.images.assign(data.images.begin() + static_cast<std::ptrdiff_t>(first * image),
                  data.images.begin() + static_cast<std::ptrdiff_t>((first + count) * image));
  d.labels.assign(data.labels.begin() + static_cast<std::ptrdiff_t>(first),
                  data.labels.begin() + static_cast<std::ptrdiff_t>(first + count));
  d.count = count;
  d.name = fmt::format("{} [{}, {})", data.name, first, first + count);
  return d;
}

EpochResult combine(Team& team, EpochResult local) {
  std::vector<double> sums{local.stats.loss_sum, local.stats.correct,
                           static_cast<double>(local.stats.count)};
  team.sum(sums);
  std::vector<double> slowest{local.seconds};
  team.max(slowest);
  // Each rank's curve is its shard's mean: weighted by its samples, summed, divided.
  const double samples = static_cast<double>(local.stats.count);
  for (auto& v : local.loss_curve) v *= samples;
  team.sum(local.loss_curve);
  for (auto& v : local.loss_curve) v /= std::max(sums[2], 1.0);
  local.stats = {sums[0], sums[1], static_cast<std::size_t>(sums[2])};
  local.seconds = slowest[0];
  return local;
}

Progress combine(Team& team, Progress local, double share) {
  std::vector<double> v{local.loss * share, local.images_per_second};
  team.sum(v);
  std::vector<double> slowest{local.seconds};
  team.max(slowest);
  local.loss = v[0];
  local.images_per_second = v[1];
  local.seconds = slowest[0];
  return local;
}

Evaluation evaluate(Team& team, Sequential& model, const DeviceDataset& part, std::size_t batch) {
  Evaluation e = evaluate(model, part, batch);
  std::vector<double> sums{e.stats.loss_sum, e.stats.correct, static_cast<double>(e.stats.count)};
  team.sum(sums);
  std::vector<double> slowest{e.seconds};
  team.max(slowest);
  e.stats = {sums[0], sums[1], static_cast<std::size_t>(sums[2])};
  e.seconds = slowest[0];
  if (team.size() == 1) return e;
  e.predictions = team.gather(e.predictions);
  const auto labels = team.gather(part.labels());
  e.confusion = team.rank() == 0 ? confusion_matrix(e.predictions, labels, e.classes)
                                 : std::vector<std::size_t>{};
  return e;
}

}  // namespace gpgpu::nn
