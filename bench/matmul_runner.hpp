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
// What is measured, per method and size n (m = k = n), after `warmup` untimed runs:
//   kernel      the multiplication alone on device-resident data: GL_TIME_ELAPSED around
//               the dispatch on GPUs; wall clock around dispatch + glFinish on llvmpipe,
//               whose timer queries do not see the work; cudaEvents for CUDA; wall clock
//               for the CPU methods (which have nothing to upload).
//   end-to-end  host arrays in, host array out: upload of A and B, the kernel, download
//               of C (wall clock; for CUDA its own pinned-memory figure).
// On CPU-only devices (llvmpipe) the tables add GFLOP per CPU-second: 2 m n k over the CPU
// time the process (all its threads) used per kernel run, a figure other load moves less.
// Both are medians of up to `repeats` runs (fewer when a point would exceed
// max_seconds_per_point); GFLOPS = 2 m n k / t. A method is skipped at sizes where one run
// is predicted (from its previous size, scaling with n^3) to exceed max_seconds_per_run.
//
// Every result is checked against float64: all entries for n <= full_check_max_n, else
// `sampled_entries` random entries plus the corners. An entry is wrong when
// |c - c64| > (k + 2) * 2^-24 * sum_i |a_ri b_ic| (the float32 dot-product bound), or when it
// is not finite; a wrong result is reported as WRONG, and its speed is not plotted.
// The precision report gives, per method and size, max |c - c64| / max |c64| and the worst
// |c - c64| / (2^-24 * sum_i |a_ri b_ic|), the error in units of the bound's eps.
#pragma once

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "gpgpu/context.hpp"

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
