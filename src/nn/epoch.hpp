// Internal: how every trainer's epoch starts (Trainer over a device data set, ArrayTrainer over
// host arrays), so that both take the same steps, order, learning rate and dropout seeds.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpgpu/nn/train.hpp"
#include "plan/hash.hpp"

namespace gpgpu::nn::detail {

struct EpochStart {
  EpochResult result;                // epoch and learning rate filled in
  std::size_t steps = 0;             // whole batches, at most limit_steps
  std::vector<std::uint32_t> order;  // the epoch's shuffled sample order
  std::uint32_t seed = 0;            // the epoch's seed: augmentation; step s's dropout seed is
                                     // pcg_hash(seed + s)
};

inline EpochStart start_epoch(const TrainOptions& o, std::size_t count, std::size_t epoch) {
  EpochStart e;
  e.result.epoch = epoch;
  e.result.learning_rate = scheduled_learning_rate(learning_rate(o.optimizer), o.schedule, epoch,
                                                   o.epochs, o.step_epochs);
  e.steps = count / o.batch;
  if (o.limit_steps > 0) e.steps = std::min(e.steps, o.limit_steps);
  e.order = shuffled_indices(count, o.seed, epoch);
  e.seed =
      pcg_hash(static_cast<std::uint32_t>(o.seed) ^ pcg_hash(static_cast<std::uint32_t>(epoch)));
  return e;
}

}  // namespace gpgpu::nn::detail
