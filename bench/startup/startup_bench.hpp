// `gpgpu bench startup`: how long a new process takes to its first result, with an empty
// cache, a warm one and the drivers' caches alone (GPGPU_CACHE=off), beside the same work in a
// process that is already warm (startup_probe.cpp); docs/startup.md says how each is set up.
// Cases: a Context; a Context and the first ComputeKernel run (SAXPY over 2^20 floats);
// `gpgpu sort` of 2^20 keys; `gpgpu predict` of one image (a model the bench trains first);
// `gpgpu train --epochs 1` (steady: the second epoch and its evaluation of a 2-epoch run).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace gpgpu::bench {

struct StartupBenchOptions {
  std::filesystem::path data;                        // IDX directory (empty: the default data set)
  std::string net = "small";                         // for the training case
  std::size_t train_limit = 2000, test_limit = 500;  // 0: all images
  int repeats = 3;                                   // each case and mode; medians reported
  std::string device;                                // given to the children as GPGPU_DEVICE
  std::filesystem::path out = "out/bench";
};

// Runs every case, prints a markdown table and writes OUT/startup/startup.md and .json.
int run_startup_bench(const StartupBenchOptions& options);

// The child side (`gpgpu bench startup-probe WHAT [FILE]`): times WHAT (context, kernel,
// sort FILE.npy, predict MODEL) in this process, first and steady, and prints one JSON line.
int run_startup_probe(const std::string& what, const std::string& file,
                      const std::filesystem::path& data);

}  // namespace gpgpu::bench
