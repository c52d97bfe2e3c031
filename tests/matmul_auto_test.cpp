// What MatmulMethod::Auto picks and the pieces it picks from: the host BLAS on CPU devices,
// split-K and row panels on GPUs (run here on whatever device the tests use), each checked
// against float64.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/gpgpu.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::MatmulMethod;
using gpgpu::MatmulOptions;
using gpgpu::MatmulTuning;
namespace test = gpgpu::test;

std::size_t count(int rows, int cols) {
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
}

// Every entry against float64: a length-k dot product in float32 errs by at most
// gamma_k sum |a||b| with gamma_k ~ k eps; (k + 2) eps leaves room for the split-K sum of the
// partial products (a sum of at most k terms in any order obeys the same bound).
void expect_product(const std::vector<float>& a, const std::vector<float>& b,
                    const std::vector<float>& c, int m, int k, int n, const std::string& what) {
  for (int row = 0; row < m; ++row) {
    for (int col = 0; col < n; ++col) {
      double exact = 0, magnitude = 0;
      for (int i = 0; i < k; ++i) {
        const double p = static_cast<double>(a[count(row, k) + i]) * b[count(i, n) + col];
        exact += p;
        magnitude += std::abs(p);
      }
      const float got = c[count(row, n) + col];
      ASSERT_NEAR(got, exact, (k + 2) * test::eps32 * magnitude)
          << what << ": C[" << row << "][" << col << "]";
    }
  }
}

MatmulTuning shared_tuning(int block, int thread, int split) {
  MatmulTuning t;
  t.block_m = block;
  t.block_n = block;
  t.block_k = 8;
  t.thread_m = thread;
  t.thread_n = thread;
  t.split_k = split;
  t.shared_memory = true;
  return t;
}

TEST(MatmulAuto, UsesTheHostBlasOnCpuDevicesAndSaysSo) {
  auto& ctx = test::context();
  const int m = 33, k = 65, n = 17;
  const auto a = test::random_floats(count(m, k)), b = test::random_floats(count(k, n));
  gpgpu::MatmulPlan plan(ctx, m, k, n);
  if (ctx.info().is_software && gpgpu::host_blas_available()) {
    EXPECT_EQ(plan.method(), MatmulMethod::HostBlas);
    EXPECT_NE(plan.description().find("host_blas"), std::string::npos) << plan.description();
  } else {
    EXPECT_EQ(plan.method(), MatmulMethod::ComputeRegisterBlocked);
    EXPECT_NE(plan.description().find("compute_register_blocked"), std::string::npos);
  }
  std::vector<float> c(count(m, n), test::poison_float());
  plan.run(a, b, c);
  expect_product(a, b, c, m, k, n, plan.description());

  // Device-resident operands through the same plan.
  const auto da = gpgpu::Buffer::from(ctx, a), db = gpgpu::Buffer::from(ctx, b);
  gpgpu::Buffer dc(ctx, gpgpu::ElementType::Float32, count(m, n));
  plan.run(da, db, dc);
  expect_product(a, b, dc.to_vector<float>(), m, k, n, plan.description() + " on Buffers");
}

TEST(MatmulAuto, HostBlasCanBeAskedForAnywhere) {
  if (!gpgpu::host_blas_available()) GTEST_SKIP() << "no BLAS library on this machine";
  auto& ctx = test::context();
  const int m = 20, k = 31, n = 9;
  const auto a = test::random_floats(count(m, k)), b = test::random_floats(count(k, n));
  MatmulOptions o;
  o.method = MatmulMethod::HostBlas;
  const auto c = gpgpu::matmul(ctx, a, b, m, k, n, o);
  expect_product(a, b, c, m, k, n, "host_blas");
}

TEST(MatmulAuto, SplitKGivesTheProductAtOddSizes) {
  auto& ctx = test::context();
  const int m = 70, k = 100, n = 50;  // none a multiple of the 32-wide blocks
  const auto a = test::random_floats(count(m, k)), b = test::random_floats(count(k, n));
  for (int split : {1, 2, 3, 5, 13}) {
    MatmulOptions o;
    o.method = MatmulMethod::ComputeRegisterBlocked;
    o.tuning = shared_tuning(32, 4, split);
    gpgpu::MatmulPlan plan(ctx, m, k, n, o);
    std::vector<float> c(count(m, n), test::poison_float());
    plan.run(a, b, c);
    expect_product(a, b, c, m, k, n, "split-K " + std::to_string(split));
  }
}

TEST(MatmulAuto, RowPanelsGiveTheProduct) {
  auto& ctx = test::context();
  const int m = 100, k = 40, n = 36;
  const auto a = test::random_floats(count(m, k)), b = test::random_floats(count(k, n));
  for (int panels : {2, 3, 7}) {
    MatmulOptions o;
    o.method = MatmulMethod::ComputeRegisterBlocked;
    o.tuning = shared_tuning(16, 4, 1);
    o.panels = panels;
    gpgpu::MatmulPlan plan(ctx, m, k, n, o);
    EXPECT_NE(plan.description().find("row panels"), std::string::npos) << plan.description();
    std::vector<float> c(count(m, n), test::poison_float());
    plan.run(a, b, c);
    expect_product(a, b, c, m, k, n, plan.description());
    // Twice: the second run reuses the plan's B buffer and panel backends.
    std::fill(c.begin(), c.end(), test::poison_float());
    plan.run(a, b, c);
    expect_product(a, b, c, m, k, n, plan.description() + ", second run");
  }
}

TEST(MatmulAuto, ForShapeSplitsKOnlyWhenTilesLeaveComputeUnitsIdle) {
  gpgpu::DeviceInfo gpu;
  gpu.compute_units = 132;
  gpu.max_compute_work_group_invocations = 1024;
  gpu.max_compute_work_group_size[0] = 1024;
  gpu.max_compute_work_group_size[1] = 1024;
  gpu.max_compute_shared_memory_size = 49152;
  for (int n : {128, 256, 512, 1024, 2048, 4096, 8192}) {
    const MatmulTuning t = MatmulTuning::for_shape(gpu, n, n, n);
    EXPECT_NO_THROW(gpgpu::validate_matmul_tuning(t, gpu)) << t.to_string();
    const long long tiles =
        static_cast<long long>((n + t.block_m - 1) / t.block_m) * ((n + t.block_n - 1) / t.block_n);
    if (tiles >= gpu.compute_units) {
      EXPECT_EQ(t.split_k, 1) << n;
    } else {
      // Each split keeps at least 16 slices of k.
      EXPECT_LE(t.split_k * 16 * t.block_k, std::max(n, 16 * t.block_k)) << n;
      if (n >= 512) {
        EXPECT_GT(t.split_k, 1) << n;
      }
    }
  }
  gpgpu::DeviceInfo unknown = gpu;
  unknown.compute_units = 0;
  EXPECT_EQ(MatmulTuning::for_shape(unknown, 1024, 1024, 1024).split_k, 1);
}

TEST(MatmulAuto, InvalidSplitKIsRejected) {
  auto& ctx = test::context();
  for (int split : {0, -1, 65}) {
    auto t = shared_tuning(32, 4, split);
    EXPECT_THROW(gpgpu::validate_matmul_tuning(t, ctx.info()), gpgpu::ArgumentError) << split;
  }
  auto direct = shared_tuning(32, 4, 2);
  direct.shared_memory = false;
  EXPECT_THROW(gpgpu::validate_matmul_tuning(direct, ctx.info()), gpgpu::ArgumentError);
}

}  // namespace
