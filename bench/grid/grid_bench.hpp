// `gpgpu bench grid`: the earth grid per level, same run — a cold build with the spring
// dynamics on the CPU (float64 on the CPU's threads, the path every machine has), a cold
// build on the GPU (float32 sweeps checked in float64), Auto (first with its timed trial,
// then following the timing it kept) and a warm read from the disk cache; with each
// build's stages, and the statistics and point differences that show the grids agree.
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
