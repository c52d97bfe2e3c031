// bench/matmul_check.hpp — checking benchmark results against float64 and measuring their
// error. Internal to gpgpu_bench_matmul.
#pragma once

#include <cstddef>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "matmul_contenders.hpp"

namespace gpgpu::bench::detail {

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

}  // namespace gpgpu::bench::detail
