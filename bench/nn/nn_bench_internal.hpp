// Internal to `gpgpu bench nn`: what its GPU and CPU sections share.
#pragma once

#include <cstddef>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpgpu/nn.hpp"
#include "harness.hpp"
#include "nn_bench.hpp"

namespace gpgpu::bench {

using json = nlohmann::json;

struct TrainTiming {
  std::size_t batch = 0, steps = 0;
  std::vector<double> epoch_seconds;
  double steady = 0, train_accuracy = 0;  // the median epoch after the first (a warm-up)
};

// o.epochs epochs of o.net's recipe at `batch` on `backend`; the trained model goes to
// *keep when given.
TrainTiming time_training(const Context& ctx, const NnBenchOptions& o, const nn::Dataset& train,
                          const nn::DeviceDataset& device_train, std::size_t batch,
                          nn::Backend backend, const nn::BackendOptions& options,
                          std::size_t limit_steps, nn::Sequential* keep);

// The CPU section (nn_bench_cpu.cpp): a JSON array, one entry per thread count.
json run_cpu_section(const Context& ctx, const NnBenchOptions& o, const std::filesystem::path& dir,
                     const nn::Dataset& full_train, const nn::DeviceDataset& device_test);

}  // namespace gpgpu::bench
