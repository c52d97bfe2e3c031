// Tests of the CUDA reference (bench/cuda): each method against the float64 CPU reference
// on fresh random 257 x 129 x 191 inputs (sizes that are not multiples of the 16 x 16
// tiles), every element checked. Skipped, with the reason, where no CUDA device is usable.
//
// Tolerance: |c - truth| <= (k + 2) * eps32 * sum_i |a_ri| |b_ic|, eps32 = 2^-24. Any
// float32 summation order, with or without FMA, is within gamma_k = k eps32 / (1 - k eps32)
// of that bound (Higham 3.1); the 2 covers the denominator and the float64 reference's own
// error. cuBLAS runs with FP32 math (no TF32, whose 2^-11 rounding would exceed this).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuda_matmul.hpp"
#include "gpgpu/cpu_matmul.hpp"
#include "gpgpu/error.hpp"

namespace {

namespace cuda_ref = gpgpu::cuda_ref;

constexpr double kEps32 = 0x1p-24;

#define SKIP_WITHOUT_CUDA()                              \
  do {                                                   \
    std::string why;                                     \
    if (!cuda_ref::available(&why)) GTEST_SKIP() << why; \
  } while (false)

std::vector<float> random_matrix(int rows, int cols, std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> matrix(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  for (float& x : matrix) x = value(rng);
  return matrix;
}

TEST(CudaRef, AvailabilityIsReportedWithAReason) {
  std::string why = "unchanged";
  if (cuda_ref::available(&why)) {
    EXPECT_TRUE(why.empty());
    EXPECT_FALSE(cuda_ref::device_name().empty());
  } else {
    EXPECT_FALSE(why.empty());
    EXPECT_NE(why, "unchanged");
  }
}

TEST(CudaRef, EveryMethodMatchesTheFloat64Reference) {
  SKIP_WITHOUT_CUDA();
  const int m = 257, k = 129, n = 191;
  std::mt19937 rng(std::random_device{}());
  const std::vector<float> a = random_matrix(m, k, rng);
  const std::vector<float> b = random_matrix(k, n, rng);
  std::vector<float> abs_a(a), abs_b(b);
  for (float& x : abs_a) x = std::fabs(x);
  for (float& x : abs_b) x = std::fabs(x);
  const std::size_t count = static_cast<std::size_t>(m) * n;
  std::vector<double> truth(count), magnitude(count);
  gpgpu::cpu::matmul_reference_f64(a, b, truth, m, k, n);
  gpgpu::cpu::matmul_reference_f64(abs_a, abs_b, magnitude, m, k, n);

  for (const auto method :
       {cuda_ref::Method::Cublas, cuda_ref::Method::NaiveKernel, cuda_ref::Method::TiledKernel}) {
    SCOPED_TRACE(cuda_ref::method_name(method) + " on " + cuda_ref::device_name());
    std::vector<float> c(count, std::numeric_limits<float>::quiet_NaN());
    const cuda_ref::Timing timing = cuda_ref::matmul(method, a, b, c, m, k, n, 1, 3);
    EXPECT_GT(timing.kernel_ms_median, 0.0);
    EXPECT_GE(timing.end_to_end_ms_median, timing.kernel_ms_median);
    for (std::size_t index = 0; index < count; ++index) {
      const double error = std::fabs(static_cast<double>(c[index]) - truth[index]);
      const double tolerance = (k + 2) * kEps32 * magnitude[index];
      // Written so that a NaN (the poison, or the device's unwritten memory) fails.
      ASSERT_TRUE(error <= tolerance)
          << "C[" << index / n << "][" << index % n << "] = " << c[index] << ", float64 "
          << truth[index] << ", |error| " << error << " > " << tolerance;
    }
  }
}

TEST(CudaRef, BadSizesThrowArgumentErrorBeforeTouchingTheDevice) {
  const std::vector<float> a(6, 1.5f), b(6, -0.5f);
  std::vector<float> c(3, 2.5f);
  EXPECT_THROW(cuda_ref::matmul(cuda_ref::Method::Cublas, a, b, c, 2, 3, 2, 0, 1),
               gpgpu::ArgumentError);  // c holds 3, C needs 4
  EXPECT_THROW(cuda_ref::matmul(cuda_ref::Method::TiledKernel, a, b, c, 0, 3, 2, 0, 1),
               gpgpu::ArgumentError);
  EXPECT_THROW(cuda_ref::matmul(cuda_ref::Method::NaiveKernel, a, b, c, 1, 3, 1, 0, 0),
               gpgpu::ArgumentError);  // repeats must be >= 1
  EXPECT_THROW(cuda_ref::pinned_copy_gbps(0, true), gpgpu::ArgumentError);
}

TEST(CudaRef, CopyBandwidthsArePositive) {
  SKIP_WITHOUT_CUDA();
  const std::size_t bytes = std::size_t{64} << 20;
  EXPECT_GT(cuda_ref::pinned_copy_gbps(bytes, true), 0.0);
  EXPECT_GT(cuda_ref::pinned_copy_gbps(bytes, false), 0.0);
  EXPECT_GT(cuda_ref::device_copy_gbps(bytes), 0.0);
}

}  // namespace
