// `gpgpu bench grid`: the earth grid per level, same run, built on the CPU, on the GPU and by
// Auto, and read warm from the disk cache, with the statistics that show the grids agree; what
// it prints and writes: docs/earth-grid.md.
#pragma once

#include <filesystem>
#include <vector>

#include "gpgpu/context.hpp"

namespace gpgpu::bench {

struct GridBenchOptions {
  std::vector<int> levels{4, 5, 6, 7};
  int repeats = 3;        // timed runs per build (median); 1 at levels >= 9
  int cpu_max_level = 9;  // no CPU or Auto build above this (level 10: minutes on 16 cores)
  bool gpu = true;        // time the GPU build (false: a machine without a usable GPU)
  bool verbose = false;   // each build's stage table
  std::filesystem::path out = "out/bench";
};

// Runs the benchmark in a temporary cache folder (the user's cache is not touched), prints
// the tables and writes OUT/grid/bench-grid.json. Returns 0.
int run_grid_bench(const GridBenchOptions& options, const Context& context);

}  // namespace gpgpu::bench
