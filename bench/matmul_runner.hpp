// bench/matmul_runner.hpp — `gpgpu bench matmul`, the matrix-multiplication speed test:
// every gpgpu method, the CPU loops and OpenBLAS, and CUDA where it is built and usable,
// over square sizes, each result checked against float64. Part of the static library
// gpgpu_bench_matmul, which the CLI (`gpgpu bench matmul`) calls. What is measured per method and
// size (kernel, end to end, GFLOP per CPU-second on CPU devices), the repeats and skips, and the
// float64 check of every result: docs/matmul.md, "The benchmark" and "Correctness and precision".
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gpgpu/context.hpp"
#include "harness.hpp"

namespace gpgpu::bench {

struct MatmulBenchOptions {
  // Square sizes n (m = k = n). Empty: 8 .. 1024 on llvmpipe, 8 .. 8192 on GPUs.
  std::vector<int> sizes;
  // Method names from list_matmul_bench_methods(). Empty: every method available here.
  std::vector<std::string> methods;
  int repeats = 5;  // timed runs per point, at most; the median is reported
  int warmup = 1;   // untimed runs first (the first dispatch of a GL program is slower)
  double max_seconds_per_point = 4.0;  // stop repeating a point once this much time is spent
  double max_seconds_per_run = 10.0;   // skip sizes where one run is predicted to take longer
  int full_check_max_n = 512;          // check every entry up to this n, else sample
  int sampled_entries = 256;
  // Where matmul.json, matmul.csv and the PNG charts go; empty writes no files.
  std::filesystem::path out_dir = "matmul-results";
  bool charts = true;             // draw PNGs with gnuplot (skipped, with a note, if it is missing)
  std::uint32_t seed = 0;         // input data; 0 picks one at random (recorded in the JSON)
  std::string command_line;       // recorded in the JSON and printed, for reproducibility
  std::ostream* table = nullptr;  // the result tables; null: std::cout
  std::ostream* progress = nullptr;  // one line per point while running; null: std::cerr
};

// Runs the benchmark and writes the tables and files. Returns 0 when every result was
// correct, 1 when any was WRONG (so that scripts can fail on it). Throws gpgpu::ArgumentError
// for an unknown method name or a size < 1, before anything runs; gpgpu::Error when out_dir
// cannot be written.
int run_matmul_bench(const MatmulBenchOptions& options, gpgpu::Context& context);

// Every method name the benchmark knows, in report order, whether or not it can run here:
// the gpgpu methods (compute_naive, ..., fragment_packed), cpu_naive, cpu_openmp,
// cpu_openmp_transposed, cpu_openblas, cuda_cublas, cuda_naive, cuda_tiled.
std::vector<std::string> list_matmul_bench_methods();

}  // namespace gpgpu::bench

namespace gpgpu::bench::detail {

// One size's inputs, row-major: A is m x k, B is k x n.
struct BenchProblem {
  int m = 0, k = 0, n = 0;
  std::vector<float> a, b;
};

// n x n inputs in [-1, 1) from `seed` (and n).
BenchProblem make_problem(int n, std::uint32_t seed);

// The entries of C one size is checked on, with their float64 values and
// sum_i |a_ri| |b_ic| (the scale of the float32 error bound).
struct CheckPlan {
  bool full = false;                         // every entry (then `entries` is empty)
  std::vector<std::pair<int, int>> entries;  // (row, col) when sampled
  std::vector<double> exact, magnitude;      // per entry, row-major when full
};

// Full when n <= full_max_n, else `samples` random entries plus the four corners.
CheckPlan make_check_plan(const BenchProblem& problem, int full_max_n, int samples,
                          std::mt19937& rng);

struct CheckResult {
  bool ok = true;
  std::string kind;  // "full" or "sampled"
  std::size_t checked = 0;
  std::size_t wrong = 0;
  double max_abs_error = 0;
  double relative_error = 0;    // max |c - c64| / max |c64|
  double worst_normalised = 0;  // max |c - c64| / (eps32 * sum_i |a_ri b_ic|)
  double bound = 0;             // k + 2: the largest worst_normalised that is correct
  std::string first_wrong;      // "C[3][7] = nan, float64 1.25"
};

// The check of `c`, added to `so_far` (the checks of other outputs of the same method and
// problem, such as its kernel path beside its end-to-end one): the worst of them all.
CheckResult check_result(const CheckPlan& plan, const BenchProblem& problem,
                         std::span<const float> c, CheckResult so_far = {});

}  // namespace gpgpu::bench::detail
