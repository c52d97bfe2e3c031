// bench/primitives_runner.hpp — `gpgpu bench primitives`: reduce, scan, sort (keys and
// pairs) and histogram at sizes 2^10..2^28 (what the device binds), every result checked
// against a CPU reference, against CUB, the CUDA device copy and the parallel CPU
// algorithms in the same run; tables, JSON, CSV and PNG charts.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
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
  std::vector<Row> rows;
  std::vector<Row> sweep;
};

// Bytes per element the GB/s figures count, per primitive.
double bytes_per_element(const std::string& primitive);

void print(std::ostream& out, const Report& report);
// primitives.json and primitives.csv in dir (harness Tables: a row per point, the run's facts
// as notes), and primitives-sweep.json and .csv after a sweep.
void write_files(const std::filesystem::path& dir, const Report& report);
// primitives_chart.dat/.gp and one PNG per primitive (GB/s against n); a line saying what
// was drawn or why not.
std::string draw_charts(const std::filesystem::path& dir, const Report& report);

}  // namespace gpgpu::bench::primitives_detail

namespace gpgpu::bench {

struct Measured {
  double ms = -1;  // median of one call
  int runs = 0;
  std::string timing;
};

// The median time of call(), setup() running before each, untimed: GPU timestamps where the
// device has working timer queries, else the fenced wall clock (gpgpu::Profiler).
inline Measured time_gpgpu(const Context& ctx, const Budget& budget,
                           const std::function<void()>& call,
                           const std::function<void()>& setup = {}) {
  const Timing t = profile(ctx, budget, call, setup);
  const bool gpu = !ctx.info().is_software && t.gpu_ms >= 0;
  return {gpu ? t.gpu_ms : t.wall_ms, t.runs, gpu ? "GPU timestamps" : "fenced wall clock"};
}

// Reproducible data from a seed (splitmix64).
std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi);
std::vector<std::uint32_t> random_uints(std::size_t n, std::uint64_t seed);

// A GLSL copy of one uint32 Buffer into another of the same size (vec4 where it can).
class DeviceCopy {
 public:
  explicit DeviceCopy(const Context& ctx);
  void run(const Buffer& from, Buffer& to);

 private:
  ComputeKernel vec4_, scalar_;
};

// Times a few PrimitiveTuning shapes per primitive at 2^26 and 2^28 (what fits), gpgpu
// only, each result checked; restores the Context's tuning afterwards.
void run_tuning_sweep(const Context& ctx, primitives_detail::Report& report, int warmup,
                      int repeats);

}  // namespace gpgpu::bench

// Every result is checked against a CPU reference before its time counts.
namespace gpgpu::bench::checks {

struct Check {
  bool ok = true;
  std::string note;  // what was compared, and the worst error or first mismatch
};

// |got - exact| <= (depth + 1) * 2^-24 * magnitude (magnitude = sum |x|).
Check reduce(double got, double exact, double magnitude, int depth);
// Every prefix within (depth + 1) * 2^-24 * sum_{j <= i} |x_j| of the float64 prefix.
Check scan(std::span<const float> got, std::span<const float> x, int depth);
// Equal element by element.
Check same(std::span<const std::uint32_t> got, std::span<const std::uint32_t> want,
           const char* what);
// keys_out sorted, values_out a permutation of 0..n-1 with keys[values_out[i]] == keys_out[i],
// and equal keys in increasing value order (stability).
Check stable_pairs(std::span<const std::uint32_t> keys, std::span<const std::uint32_t> keys_out,
                   std::span<const std::uint32_t> values_out);
// Bins within `tolerance` (absolute) of the reference, and the same total.
Check histogram(std::span<const std::uint32_t> got, std::span<const std::uint32_t> want,
                std::uint32_t tolerance);

}  // namespace gpgpu::bench::checks

// The CPU contenders, on every core: std::execution::par on TBB where the build found TBB,
// else sequential; backend() says which.
namespace gpgpu::bench::cpu {

std::string backend();  // e.g. "std::execution::par (TBB), 16 threads"

double reduce_sum(std::span<const float> x);  // summed in float, as the GPU does
void inclusive_sum(std::span<const float> x, std::span<float> out);
void sort(std::span<std::uint32_t> keys);
// Stable sort of (key, value) pairs by key.
void sort_pairs(std::span<std::uint32_t> keys, std::span<std::uint32_t> values);
// gpgpu's float32 bin formula (primitives.hpp): bins + 3 counts (below, above, NaN last).
std::vector<std::uint32_t> histogram(std::span<const float> x, std::uint32_t bins, float lo,
                                     float hi);

}  // namespace gpgpu::bench::cpu
