// Tests of the matmul benchmark's correctness check (a wrong result must be reported as
// wrong, never as fast) and a short end-to-end run of the runner with its files.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "gpgpu/cpu_matmul.hpp"
#include "gpgpu/error.hpp"
#include "matmul_runner.hpp"
#include "test_support.hpp"

namespace {

namespace detail = gpgpu::bench::detail;
namespace test = gpgpu::test;

detail::BenchProblem problem(int m, int k, int n) {
  detail::BenchProblem p;
  p.m = m;
  p.k = k;
  p.n = n;
  p.a = test::random_floats(static_cast<std::size_t>(m) * k);
  p.b = test::random_floats(static_cast<std::size_t>(k) * n);
  return p;
}

std::vector<float> float32_product(const detail::BenchProblem& p) {
  std::vector<float> c(static_cast<std::size_t>(p.m) * p.n);
  gpgpu::cpu::matmul_naive(p.a, p.b, c, p.m, p.k, p.n);
  return c;
}

TEST(MatmulBenchCheck, AcceptsAFloat32ProductAndRejectsPerturbedOnes) {
  std::mt19937 rng(test::seed());
  for (int full_max : {1000, 8}) {  // the full check, then the sampled one
    SCOPED_TRACE(full_max == 1000 ? "full" : "sampled");
    const auto p = problem(33, 40, 21);
    const auto plan = detail::make_check_plan(p, full_max, 64, rng);
    EXPECT_EQ(plan.full, full_max == 1000);
    auto c = float32_product(p);
    const auto good = detail::check_result(plan, p, c);
    EXPECT_TRUE(good.ok) << good.first_wrong;
    EXPECT_LE(good.worst_normalised, good.bound);
    EXPECT_EQ(good.bound, 42.0);

    // The corner (m-1, n-1) is checked by both plans: break it three ways.
    const std::size_t last = c.size() - 1;
    const float saved = c[last];
    c[last] = saved + 0.01f;  // far beyond 42 * 2^-24 * sum |a b| (at most 40)
    EXPECT_FALSE(detail::check_result(plan, p, c).ok);
    c[last] = std::numeric_limits<float>::quiet_NaN();
    const auto nan = detail::check_result(plan, p, c);
    EXPECT_FALSE(nan.ok);
    EXPECT_NE(nan.first_wrong.find("C[32][20]"), std::string::npos) << nan.first_wrong;
    c[last] = std::numeric_limits<float>::infinity();
    EXPECT_FALSE(detail::check_result(plan, p, c).ok);
    c[last] = saved;
    EXPECT_TRUE(detail::check_result(plan, p, c).ok);
  }
}

TEST(MatmulBenchRunner, RunsChecksAndWritesItsFiles) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gpgpu-matmul-bench-" + std::to_string(test::seed()));
  std::filesystem::remove_all(dir);
  gpgpu::bench::MatmulBenchOptions options;
  options.sizes = {24, 8};
  options.methods = {"compute_register_blocked", "fragment_packed", "cpu_openmp_transposed"};
  options.repeats = 2;
  options.out_dir = dir;
  options.charts = false;
  std::ostringstream table, progress;
  options.table = &table;
  options.progress = &progress;
  EXPECT_EQ(gpgpu::bench::run_matmul_bench(options, test::context()), 0) << table.str();

  std::ifstream json_file(dir / "matmul.json");
  const auto doc = nlohmann::json::parse(json_file);
  bool sizes = false;
  for (const auto& note : doc["notes"]) sizes |= note.get<std::string>().find("sizes 8, 24;") == 9;
  EXPECT_TRUE(sizes) << doc["notes"];
  int ok = 0;
  for (const auto& r : doc["rows"]) {
    if (r["status"] == "ok") ++ok;
    EXPECT_GT(r["kernel_gflops"].get<double>(), 0.0);
    EXPECT_EQ(r["check"], "full");
  }
  const bool fragments = test::context().info().has_color_buffer_float();
  EXPECT_EQ(ok, fragments ? 6 : 4);
  std::ifstream csv(dir / "matmul.csv");
  int lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  EXPECT_EQ(lines, 1 + ok);
  EXPECT_NE(table.str().find("| compute_register_blocked"), std::string::npos);
  EXPECT_NE(progress.str().find("n=24"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(MatmulBenchRunner, UnknownMethodsAndSizesAreRejectedBeforeRunning) {
  gpgpu::bench::MatmulBenchOptions options;
  options.out_dir.clear();
  options.methods = {"compute_fastest"};
  EXPECT_THROW(gpgpu::bench::run_matmul_bench(options, test::context()), gpgpu::ArgumentError);
  options.methods = {"cpu_naive"};
  options.sizes = {0};
  EXPECT_THROW(gpgpu::bench::run_matmul_bench(options, test::context()), gpgpu::ArgumentError);
}

}  // namespace
