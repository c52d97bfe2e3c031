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
  std::string command_line = "gpgpu bench primitives";
};

std::vector<std::string> primitives_bench_names();

// Prints the report and writes primitives.json, primitives.csv and the charts into out_dir.
// Returns 0, or 1 when any result was wrong.
int run_primitives_bench(const PrimitivesBenchOptions& options, const Context& ctx);

}  // namespace gpgpu::bench

namespace gpgpu::bench::primitives_detail {

// A row of primitives.json and primitives.csv, or of the tuning sweep (primitives-sweep.json
// and .csv: the tuning in `contender`).
struct Row {
  std::string primitive;  // reduce, scan, sort, sort_pairs, histogram, copy
  std::string contender;  // gpgpu, cub, cpu, cuda copy, gpgpu copy; the sweep's tuning
  std::string family;     // gpgpu, cuda, cpu
  std::size_t n = 0;
  double ms = -1;    // median time of one call
  double bytes = 0;  // the minimal traffic counted for GB/s (see the report notes)
  double gbps = 0, gelements_per_s = 0;
  int runs = 0;
  std::string timing{};  // where the time comes from
  std::string status{};  // ok, WRONG, skipped, error
  std::string note{};    // the check, or why it was skipped
};

struct Report {
  RunFacts facts;
  std::string cpu_backend, timing;
  std::vector<std::size_t> sizes;
  std::vector<Row> rows, sweep;
};

// Bytes per element the GB/s figures count, per primitive.
double bytes_per_element(const std::string& primitive);

// Prints the report; writes primitives.json and .csv (harness Tables: a row per point, the
// run's facts as notes), primitives-sweep.json and .csv after a sweep, and with `charts`
// primitives_chart.dat/.gp and one PNG per primitive (GB/s against n).
void report(const Report& report, const std::filesystem::path& dir, bool charts);

}  // namespace gpgpu::bench::primitives_detail
