// bench/matmul_report.hpp — the matmul benchmark's results and how they are written out:
// markdown tables, JSON, CSV and gnuplot charts. Internal to gpgpu_bench_matmul.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "harness.hpp"
#include "matmul_check.hpp"
#include "matmul_runner.hpp"

namespace gpgpu::bench::detail {

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
  std::string check_kind;           // "full" or "sampled"
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
// matmul.json and matmul.csv in out_dir.
void write_files(const std::filesystem::path& out_dir, const BenchReport& report);
// matmul_chart.dat and .gp in out_dir, and gnuplot's matmul_gflops.png,
// matmul_gflops_end_to_end.png and matmul_precision.png. Returns a line saying what was drawn,
// or why nothing was (gnuplot missing or failing).
std::string draw_charts(const std::filesystem::path& out_dir, const BenchReport& report);

// 3 significant digits: 0.0123, 1.23, 12.3, 1234.
std::string format_gflops(double gflops);

}  // namespace gpgpu::bench::detail
