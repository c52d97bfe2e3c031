// Tests of gpgpu::cpu: every float32 method against the float64 reference, on fresh random
// non-square inputs, every element checked.
//
// Tolerance. Summing k float32 products in any order (with or without FMA, blocked or not,
// as OpenBLAS does) is within gamma_k * sum_i |a_ri| |b_ic| of the exact result, where
// gamma_k = k u / (1 - k u) and u = eps32 = 2^-24 (Higham, Accuracy and Stability of
// Numerical Algorithms, 3.1). The tests allow (k + 2) * eps32 * sum_i |a_ri| |b_ic|: the 2
// covers the 1 / (1 - k u) factor and the float64 reference's own error (about k * 2^-53
// relative), both far below one eps32. sum_i |a_ri| |b_ic| is computed exactly enough by
// the reference itself applied to |A| and |B|.
#include "gpgpu/cpu_matmul.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gpgpu/error.hpp"

namespace {

namespace cpu = gpgpu::cpu;

constexpr double kEps32 = 0x1p-24;

using MatmulFunction = void (*)(std::span<const float>, std::span<const float>, std::span<float>,
                                int, int, int);
struct Method {
  const char* name;
  MatmulFunction function;
};
const Method kMethods[] = {
    {"matmul_naive", cpu::matmul_naive},
    {"matmul_openmp", cpu::matmul_openmp},
    {"matmul_openmp_transposed", cpu::matmul_openmp_transposed},
    {"matmul_openblas", cpu::matmul_openblas},
};

struct Shape {
  int m, k, n;
};

std::vector<float> random_matrix(int rows, int cols, std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> matrix(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  for (float& x : matrix) x = value(rng);
  return matrix;
}

std::vector<float> absolute(std::vector<float> matrix) {
  for (float& x : matrix) x = std::fabs(x);
  return matrix;
}

std::vector<float> poisoned(std::size_t count) {
  return std::vector<float>(count, std::numeric_limits<float>::quiet_NaN());
}

TEST(CpuMatmul, EveryMethodMatchesTheFloat64ReferenceOnRandomNonSquareShapes) {
  const Shape shapes[] = {{37, 53, 29}, {128, 64, 96}, {1, 1, 1},    {5, 1, 7},
                          {3, 300, 2},  {64, 257, 33}, {200, 17, 1}, {1, 1000, 131}};
  std::mt19937 rng(std::random_device{}());
  for (const Shape& s : shapes) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n));
    const std::vector<float> a = random_matrix(s.m, s.k, rng);
    const std::vector<float> b = random_matrix(s.k, s.n, rng);
    const std::size_t count = static_cast<std::size_t>(s.m) * static_cast<std::size_t>(s.n);
    std::vector<double> truth(count);
    std::vector<double> magnitude(count);  // sum_i |a_ri| |b_ic|
    cpu::matmul_reference_f64(a, b, truth, s.m, s.k, s.n);
    cpu::matmul_reference_f64(absolute(a), absolute(b), magnitude, s.m, s.k, s.n);
    const double tolerance_factor = (s.k + 2) * kEps32;

    for (const Method& method : kMethods) {
      SCOPED_TRACE(method.name);
      std::vector<float> c = poisoned(count);
      method.function(a, b, c, s.m, s.k, s.n);
      for (std::size_t index = 0; index < count; ++index) {
        const double error = std::fabs(static_cast<double>(c[index]) - truth[index]);
        const double tolerance = tolerance_factor * magnitude[index];
        // Written so that a NaN left by the poison fails.
        ASSERT_TRUE(error <= tolerance)
            << "C[" << index / s.n << "][" << index % s.n << "] = " << c[index] << ", float64 "
            << truth[index] << ", |error| " << error << " > " << tolerance;
      }
    }
    // The single-entry reference sums in the same order, so it agrees exactly.
    for (int row = 0; row < s.m; ++row) {
      for (int col = 0; col < s.n; ++col) {
        ASSERT_EQ(cpu::reference_entry_f64(a, b, s.k, s.n, row, col),
                  truth[static_cast<std::size_t>(row) * s.n + col]);
      }
    }
  }
}

// Seed 003's texture example, whose exact product it states: integers small enough that
// every method must reproduce them exactly.
TEST(CpuMatmul, SeedExampleIsExact) {
  const std::vector<float> a = {1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18};
  const std::vector<float> b = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  const std::vector<double> expected = {372, 408, 1012, 1128};
  std::vector<double> truth(4);
  cpu::matmul_reference_f64(a, b, truth, 2, 8, 2);
  EXPECT_EQ(truth, expected);
  for (const Method& method : kMethods) {
    SCOPED_TRACE(method.name);
    std::vector<float> c = poisoned(4);
    method.function(a, b, c, 2, 8, 2);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(c[i], expected[i]) << i;
  }
}

TEST(CpuMatmul, EmptyInnerDimensionGivesZerosAndEmptyOutputsAreFine) {
  const std::vector<float> none;
  for (const Method& method : kMethods) {
    SCOPED_TRACE(method.name);
    std::vector<float> c = poisoned(12);
    method.function(none, none, c, 3, 0, 4);
    for (float x : c) EXPECT_EQ(x, 0.0f);
    std::vector<float> untouched = poisoned(1);
    method.function(none, none, untouched, 0, 5, 0);
    EXPECT_TRUE(std::isnan(untouched[0]));
  }
}

TEST(CpuMatmul, TooSmallSpansThrowArgumentErrorNamingTheArgument) {
  std::mt19937 rng(std::random_device{}());
  const std::vector<float> a = random_matrix(4, 5, rng);
  const std::vector<float> b = random_matrix(5, 6, rng);
  struct Case {
    int m, k, n;
    std::size_t c_size;
    std::string words;
  };
  const Case cases[] = {
      {5, 5, 6, 30, "a holds 20 elements, but A (5 x 5) needs 25"},
      {4, 5, 7, 28, "b holds 30 elements, but B (5 x 7) needs 35"},
      {4, 5, 6, 23, "c holds 23 elements, but C (4 x 6) needs 24"},
      {-1, 5, 6, 24, "must not be negative, found m = -1"},
  };
  for (const Method& method : kMethods) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(method.name) + ": " + c.words);
      std::vector<float> out = poisoned(c.c_size);
      try {
        method.function(a, b, out, c.m, c.k, c.n);
        ADD_FAILURE() << "no ArgumentError";
      } catch (const gpgpu::ArgumentError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find(c.words), std::string::npos) << message;
        EXPECT_NE(message.find(method.name), std::string::npos) << message;
      }
      for (float x : out) ASSERT_TRUE(std::isnan(x)) << "output written before the check";
    }
  }
  std::vector<double> small(23);
  EXPECT_THROW(cpu::matmul_reference_f64(a, b, small, 4, 5, 6), gpgpu::ArgumentError);
  EXPECT_THROW(cpu::reference_entry_f64(a, b, 5, 6, 4, 0), gpgpu::ArgumentError);  // row 4 of 4
  EXPECT_THROW(cpu::reference_entry_f64(a, b, 5, 6, 0, 6), gpgpu::ArgumentError);  // col 6 of 6
  EXPECT_THROW(cpu::reference_entry_f64(a, b, 5, 6, -1, 0), gpgpu::ArgumentError);
}

TEST(CpuMatmul, OpenBlasReportsItsConfiguration) {
  EXPECT_GE(cpu::openblas_threads(), 1);
  EXPECT_NE(cpu::openblas_config().find("OpenBLAS"), std::string::npos) << cpu::openblas_config();
}

}  // namespace
