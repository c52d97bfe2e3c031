// bench/primitives_runner.hpp — `gpgpu bench primitives`: reduce, scan, sort (keys and
// pairs) and histogram at sizes 2^10..2^28 (what the device binds), every result checked
// against a CPU reference, against CUB, the CUDA device copy and the parallel CPU
// algorithms in the same run; tables, JSON, CSV and PNG charts.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "gpgpu/context.hpp"
#include "harness.hpp"

namespace gpgpu::bench {

struct PrimitivesBenchOptions {
  std::vector<int> log2_sizes;          // default: 10, 12, ..., 24, 26, 27, 28
  std::vector<std::string> primitives;  // default: all (primitives_bench_names())
  int repeats = 10;                     // timed runs per point (median reported)
  int warmup = 2;
  double max_seconds_per_run = 5;  // a contender slower than this stops growing
  std::filesystem::path out_dir = "out/bench/primitives";
  bool charts = true;
  bool sweep = false;       // also time a few kernel shapes (PrimitiveTuning)
  bool both_paths = false;  // also time the other kernel family (subgroup / shared memory)
  bool cpu = true;          // time the parallel CPU algorithms
  std::string tuning;       // "field=value,...": PrimitiveTuning fields set for the whole run
  std::string command_line = "gpgpu bench primitives";
};

std::vector<std::string> primitives_bench_names();

// Prints the report and writes primitives.json, primitives.csv and the charts into out_dir.
// Returns 0, or 1 when any result was wrong.
int run_primitives_bench(const PrimitivesBenchOptions& options, const Context& ctx);

}  // namespace gpgpu::bench
