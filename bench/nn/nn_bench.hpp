// `gpgpu bench nn`: epoch times of a network (the plain 2-conv net by default) at several
// batch sizes, the time to classify the test set, the CPU cost of one kernel dispatch, the Cpu
// backend's images/s at several thread counts beside PyTorch on the CPU, and (optionally) the
// transform-feedback backend's rate against the graphics stage's ceiling. The figures match
// bench/nn/torch_cnn.py's, for a same-run comparison with PyTorch.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "gpgpu/context.hpp"

namespace gpgpu::bench {

struct NnBenchOptions {
  std::filesystem::path data;  // IDX directory (empty: the default data set)
  std::string net = "cnn";
  std::vector<std::size_t> batches{64, 256};
  std::size_t epochs = 3;  // per batch size; the first is a warm-up (compiles, autotunes)
  std::size_t inference_batch = 10000;
  std::size_t inference_calls = 5;  // timed classifications of the test set, after the warm-up
  std::size_t train_limit = 0;      // train on the first N images only (0: all)
  std::size_t test_limit = 0;       // classify the first N test images only (0: all)
  std::size_t tf_images = 0;        // > 0: also time the transform-feedback backend on N images
  double tf_ceiling_tflops = 1.63;  // vertex-stage ALU ceiling of the device (H100, measured)
  std::filesystem::path out = "out/bench";
  bool gpu = true;  // the compute-backend section
  // The compute backend's BackendOptions::replay (false: every kernel on its own, for a
  // same-run comparison) and fuse_pooling ("auto", "off", "kernel", "loads").
  bool replay = true;
  std::string fuse_pooling = "auto";
  // The CPU section: thread counts (0: all, as BackendOptions::threads = 0 gives), the
  // training images and the inference batch (the test set is classified in such batches).
  std::vector<std::size_t> cpu_threads;
  std::size_t cpu_images = 6400, cpu_inference_batch = 1000;
  bool torch = true;                   // PyTorch on the CPU, when importable
  std::filesystem::path torch_script;  // empty: the source tree's bench/nn/torch_cnn.py
  std::string python = "python3";      // the interpreter that imports torch
};

// Runs the benchmark, prints a table and writes OUT/nn/bench-nn.json. Returns 0.
int run_nn_bench(const NnBenchOptions& options, const Context& context);

}  // namespace gpgpu::bench
