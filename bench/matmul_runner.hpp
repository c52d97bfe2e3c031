// bench/matmul_runner.hpp — `gpgpu bench matmul`, the matrix-multiplication speed test:
// every gpgpu method, the CPU loops and OpenBLAS, and CUDA where it is built and usable,
// over square sizes, each result checked against float64.
//
//   gpgpu::Context ctx;
//   gpgpu::bench::MatmulBenchOptions options;
//   options.out_dir = "results";                 // matmul.json, matmul.csv, PNG charts
//   return gpgpu::bench::run_matmul_bench(options, ctx);
//
// Part of the static library gpgpu_bench_matmul, which the CLI (`gpgpu bench matmul`) calls.
//
// What is measured per method and size (kernel, end to end, GFLOP per CPU-second on CPU
// devices), the repeats and skips, and the float64 check of every result: docs/matmul.md,
// "The benchmark" and "Correctness and precision".
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
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
  // Square sizes n (m = k = n). Empty: default_matmul_sizes(the device).
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

// Sizes that fit the device: 8 .. 1024 on llvmpipe (the whole run takes a few minutes
// there), 8 .. 8192 on GPUs.
std::vector<int> default_matmul_sizes(const gpgpu::DeviceInfo& device);

}  // namespace gpgpu::bench

namespace gpgpu::bench::detail {

// One size's inputs, row-major: A is m x k, B is k x n.
struct BenchProblem {
  int m = 0, k = 0, n = 0;
  std::vector<float> a, b;
};

struct Measurement {
  std::vector<double> kernel_ms;  // one per timed run (CUDA: its median)
  // CPU time this process used during each kernel run (all its threads, llvmpipe's
  // included); empty where it means nothing (CUDA).
  std::vector<double> kernel_cpu_ms;
  std::vector<double> wall_ms;              // end to end, host arrays in and out
  std::string kernel_clock;                 // gl_time_elapsed, wall_glfinish, cuda_event, wall
  std::vector<std::vector<float>> results;  // every C to check against float64
  std::string detail;                       // e.g. the tuning a gpgpu method ran with
};

// A thing timed: `measure` warms up and times one size (Budget::max_seconds for all its timed
// runs together) and throws gpgpu::Error if the method fails; `unavailable` says why it cannot
// run here (not implemented, no CUDA device...), empty when it can.
struct Contender {
  std::string name, family;  // family: "gl", "cpu" or "cuda"
  std::string unavailable;
  std::function<Measurement(const BenchProblem&, const Budget&)> measure;
};

// n x n inputs in [-1, 1) from `seed` (and n).
BenchProblem make_problem(int n, std::uint32_t seed);

// Every name, in report order.
std::vector<std::string> contender_names();
// Throws gpgpu::ArgumentError for an unknown name.
Contender make_contender(const std::string& name, gpgpu::Context& context);

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

CheckResult check_result(const CheckPlan& plan, const BenchProblem& problem,
                         std::span<const float> c);

// Combines the checks of several outputs of one method (kernel path and end to end).
CheckResult worst_of(const CheckResult& x, const CheckResult& y);

// One method at one size: a row of matmul.json and matmul.csv.
struct PointResult {
  std::string method, family;
  int m = 0, k = 0, n = 0;
  std::string status;  // ok, WRONG, skipped, error
  std::string note;    // why skipped / the error / the first wrong entry
  std::string detail;  // tuning, threads, device
  std::string kernel_clock;
  int runs = 0;
  double kernel_ms = 0, wall_ms = 0;  // medians; 0 when not measured
  double kernel_gflops = 0, wall_gflops = 0;
  double kernel_cpu_ms = 0;         // median CPU time of the process per kernel run
  double gflop_per_cpu_second = 0;  // 2 m n k / that: robust to other load on the CPU
  CheckResult check;
};

struct BenchReport {
  RunFacts facts;
  unsigned seed = 0;
  std::string openblas_config;
  MatmulBenchOptions options;                                    // with the sizes that ran, sorted
  std::vector<std::string> methods;                              // that ran, in report order
  std::vector<std::pair<std::string, std::string>> unavailable;  // method, why
  std::vector<PointResult> results;
};

// Markdown tables: kernel GFLOPS, end-to-end GFLOPS, precision; then notes.
void print_report(std::ostream& out, const BenchReport& report);
// matmul.json and matmul.csv in out_dir: a harness Table (Table::write), a row per point with
// its check, the run's facts (device, host, options, seed) as notes.
void write_files(const std::filesystem::path& out_dir, const BenchReport& report);
// matmul_chart.dat and .gp in out_dir, and gnuplot's matmul_gflops.png,
// matmul_gflops_end_to_end.png and matmul_precision.png. Returns a line saying what was drawn,
// or why nothing was (gnuplot missing or failing).
std::string draw_charts(const std::filesystem::path& out_dir, const BenchReport& report);

// 3 significant digits: 0.0123, 1.23, 12.3, 1234.
std::string format_gflops(double gflops);

}  // namespace gpgpu::bench::detail
