// The CPU section of `gpgpu bench nn` (nn_bench.hpp): the Cpu backend at each thread count,
// and PyTorch on the CPU at the same count, in the same run, when python3 imports torch.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "nn_bench_internal.hpp"

namespace gpgpu::bench {

namespace {

namespace nn = gpgpu::nn;

struct CpuFigures {
  double train_images_per_second = 0, inference_images_per_second = 0, train_accuracy = 0;
};

CpuFigures time_gpgpu_cpu(const Context& ctx, const NnBenchOptions& o, const nn::Dataset& train,
                          const nn::DeviceDataset& device_train,
                          const nn::DeviceDataset& device_test, std::size_t threads) {
  nn::Sequential model(ctx, train.sample_shape());
  const auto t = time_training(ctx, o, train, device_train, 64, nn::Backend::Cpu,
                               {.threads = threads}, 0, &model);
  std::vector<double> seconds;
  for (int r = 0; r < 3; ++r) {
    seconds.push_back(nn::evaluate(model, device_test, o.cpu_inference_batch).seconds);
  }
  const double steady = median(std::vector<double>(seconds.begin() + 1, seconds.end()));
  return {static_cast<double>(t.steps * 64) / t.steady,
          static_cast<double>(device_test.count()) / steady, t.train_accuracy};
}

bool torch_importable(const std::string& python) {
  return std::system(fmt::format("'{}' -c 'import torch' >/dev/null 2>&1", python).c_str()) == 0;
}

// PyTorch's figures for the same work, or nullopt (with the reason in `why`).
std::optional<CpuFigures> time_torch_cpu(const NnBenchOptions& o, const std::filesystem::path& data,
                                         std::size_t threads, std::size_t test_images,
                                         std::string& why) {
  const auto script =
      o.torch_script.empty() ? std::filesystem::path(GPGPU_TORCH_CNN_SCRIPT) : o.torch_script;
  const auto out = std::filesystem::temp_directory_path() /
                   fmt::format("gpgpu-torch-cpu-{}-{}.json", ::getpid(), threads);
  const std::string command = fmt::format(
      "'{}' '{}' --device cpu --threads {} --batches 64 --epochs {} --train-limit {} "
      "--test-limit {} --inference-batch {} --data '{}' --out '{}' >&2",
      o.python, script.string(), threads, o.epochs, o.cpu_images, test_images,
      o.cpu_inference_batch, data.string(), out.string());
  if (std::system(command.c_str()) != 0) {
    why = "bench/nn/torch_cnn.py failed: " + command;
    return std::nullopt;
  }
  const auto report = json::parse(std::ifstream(out));
  std::filesystem::remove(out);
  const auto& train = report.at("train").at(0);
  return CpuFigures{
      train.at("images_per_second").get<double>(),
      1e3 * static_cast<double>(test_images) / report.at("inference_steady_ms").get<double>(), 0};
}

}  // namespace

json run_cpu_section(const Context& ctx, const NnBenchOptions& o, const std::filesystem::path& dir,
                     const nn::Dataset& full_train, const nn::DeviceDataset& device_test) {
  const auto train = full_train.first(o.cpu_images);
  nn::DeviceDataset device_train(ctx, train);
  const bool torch = o.torch && torch_importable(o.python);
  json section = json::array();
  std::cout << fmt::format(
      "\nCPU backend ({}), {} training images (batch 64), {} test images (batch {}){}\n"
      "{:>7}  {:>16} {:>16} {:>7}  {:>16} {:>16} {:>7}\n",
      nn::cpu_blas(), train.count, device_test.count(), o.cpu_inference_batch,
      torch ? ", PyTorch in the same run" : " (PyTorch not importable here)", "threads",
      "train img/s", "torch train", "ratio", "infer img/s", "torch infer", "ratio");
  std::vector<std::size_t> done;
  for (std::size_t requested : o.cpu_threads) {
    const std::size_t threads = requested == 0 ? nn::cpu_threads({}) : requested;
    if (std::find(done.begin(), done.end(), threads) != done.end()) continue;  // "all" = 2
    done.push_back(threads);
    const auto g = time_gpgpu_cpu(ctx, o, train, device_train, device_test, threads);
    json row{{"threads", threads},
             {"gpgpu",
              {{"train_images_per_second", g.train_images_per_second},
               {"inference_images_per_second", g.inference_images_per_second},
               {"train_accuracy_last_epoch", g.train_accuracy}}}};
    std::string why = "torch not importable";
    std::optional<CpuFigures> t;
    if (torch) t = time_torch_cpu(o, dir, threads, device_test.count(), why);
    if (t) {
      const double train_ratio = g.train_images_per_second / t->train_images_per_second;
      const double infer_ratio = g.inference_images_per_second / t->inference_images_per_second;
      row["torch"] = {{"train_images_per_second", t->train_images_per_second},
                      {"inference_images_per_second", t->inference_images_per_second}};
      row["ratio_train"] = train_ratio;
      row["ratio_inference"] = infer_ratio;
      std::cout << fmt::format(
          "{:>7}  {:>16.0f} {:>16.0f} {:>6.2f}x  {:>16.0f} {:>16.0f} {:>6.2f}x\n", threads,
          g.train_images_per_second, t->train_images_per_second, train_ratio,
          g.inference_images_per_second, t->inference_images_per_second, infer_ratio);
    } else {
      row["torch"] = nullptr;
      row["torch_missing"] = why;
      std::cout << fmt::format("{:>7}  {:>16.0f} {:>16} {:>7}  {:>16.0f} {:>16} {:>7}\n", threads,
                               g.train_images_per_second, "-", "-", g.inference_images_per_second,
                               "-", "-");
    }
    std::cout << std::flush;
    section.push_back(row);
  }
  return section;
}

}  // namespace gpgpu::bench
