// The seeds' samples with the seeds' numbers: gpgpu.js (transform feedback, through the
// gpgpu::js facade) and GPGPUtility (fragment shader). The shaders are the examples' own
// (examples/seed_samples/seed_shaders.hpp).
//
// The gpgpu.js samples use small integers: every input, product and partial sum is an
// integer below 2^24, so float32 computes them exactly and the tests compare exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "gpgpu/error.hpp"
#include "gpgpu/fragment_kernel.hpp"
#include "gpgpu/gpgpu_js.hpp"
#include "gpgpu/texture.hpp"
#include "seed_shaders.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::test::context;
using gpgpu::test::poison_float;
using Floats = std::vector<float>;

TEST(SeedSamples, AddVec) {
  gpgpu::js::GPGPU gpgpu(context());
  Floats A = {10, 20, 30, 40, 50, 60}, B = {1, 2, 3, 4, 5, 6}, C(6, poison_float());
  gpgpu.compute(
      {.id = "AddVec", .vertex_shader = seed::add_vec, .args = {{"A", A}, {"B", B}, {"C", C}}});
  EXPECT_TRUE(gpgpu.clear("AddVec"));
  EXPECT_EQ(C, (Floats{11, 22, 33, 44, 55, 66}));
  EXPECT_EQ(A, (Floats{10, 20, 30, 40, 50, 60}));  // inputs are not written
}

TEST(SeedSamples, AddMulVec) {
  gpgpu::js::GPGPU gpgpu(context());
  Floats A = {10, 20, 30, 40, 50, 60}, B = {1, 2, 3, 4, 5, 6};
  Floats C(6, poison_float()), D(6, poison_float());
  gpgpu.compute({.id = "AddMulVec",
                 .vertex_shader = seed::add_mul_vec,
                 .args = {{"A", A}, {"B", B}, {"C", C}, {"D", D}}});
  EXPECT_EQ(C, (Floats{11, 22, 33, 44, 55, 66}));
  EXPECT_EQ(D, (Floats{10, 40, 90, 160, 250, 360}));
}

TEST(SeedSamples, AddDotVec) {
  gpgpu::js::GPGPU gpgpu(context());
  Floats A = {1, 2, 3, 4, 5, 6}, B = {10, 20, 30, 40, 50, 60};
  Floats C(6, poison_float()), D(2, poison_float());
  gpgpu.compute({.id = "AddDotVec",
                 .vertex_shader = seed::add_dot_vec,
                 .args = {{"A", A}, {"B", B}, {"C", C}, {"D", D}}});
  EXPECT_EQ(C, (Floats{11, 22, 33, 44, 55, 66}));
  EXPECT_EQ(D, (Floats{140, 770}));  // 1*10 + 2*20 + 3*30, 4*40 + 5*50 + 6*60
}

TEST(SeedSamples, UniMul) {
  gpgpu::js::GPGPU gpgpu(context());
  Floats A = {1, 2, 3, 4, 5, 6}, C(6, poison_float());
  gpgpu.compute(
      {.id = "UniMul", .vertex_shader = seed::uni_mul, .args = {{"A", A}, {"B", 3.0f}, {"C", C}}});
  EXPECT_EQ(C, (Floats{3, 6, 9, 12, 15, 18}));
}

TEST(SeedSamples, UniMulMatIsColumnMajor) {
  gpgpu::js::GPGPU gpgpu(context());
  Floats A = {1, 2, 3, 4, 5, 6}, C(6, poison_float());
  const std::array<float, 9> B = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  gpgpu.compute({.id = "UniMulMat",
                 .vertex_shader = seed::uni_mul_mat,
                 .args = {{"A", A}, {"B", B}, {"C", C}}});
  EXPECT_EQ(C, (Floats{30, 36, 42, 66, 81, 96}));
  // The same 9 values read row-major would be the transposed matrix.
  gpgpu.compute({.id = "UniMulMat",
                 .vertex_shader = seed::uni_mul_mat,
                 .args = {{"A", A}, {"B", gpgpu::row_major(B)}, {"C", C}}});
  EXPECT_EQ(C, (Floats{14, 32, 50, 32, 77, 122}));
}

TEST(SeedSamples, TexMulMat) {
  gpgpu::js::GPGPU gpgpu(context());
  const Floats A = {1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18};
  const Floats B = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  Floats C(4, poison_float());
  gpgpu.compute({.id = "TexMulMat",
                 .vertex_shader = seed::tex_mul_mat,
                 .args = {{"zero", Floats(4, 0.0f)},
                          {"A", gpgpu.make_texture_info("float", {2, 8}, A)},
                          {"B", gpgpu.make_texture_info("float", {8, 2}, B)},
                          {"C", C}}});
  EXPECT_EQ(C, (Floats{372, 408, 1012, 1128}));
}

TEST(SeedSamples, TexMulMatVec4) {
  gpgpu::js::GPGPU gpgpu(context());
  const Floats A = {1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18};
  const Floats B_transposed = {1, 3, 5, 7, 9, 11, 13, 15, 2, 4, 6, 8, 10, 12, 14, 16};
  Floats C(4, poison_float());
  gpgpu.compute({.id = "TexMulMatVec4",
                 .vertex_shader = seed::tex_mul_mat_vec4,
                 .args = {{"A", gpgpu.make_texture_info("vec4", {2, 2}, A)},
                          {"B", gpgpu.make_texture_info("vec4", {2, 2}, B_transposed)},
                          {"C", C}}});
  EXPECT_EQ(C, (Floats{372, 408, 1012, 1128}));
}

// GPGPUtility (seed 002): R = M^2 for the 128 x 128 matrix M(i, j) = 1000 i + j.
TEST(SeedSamples, MatrixSquareByFragmentShader) {
  auto& ctx = context();
  const std::size_t n = 128;
  gpgpu::FragmentKernel init(ctx, seed::matrix_init);
  gpgpu::FragmentKernel square(ctx, seed::matrix_square);
  gpgpu::Texture m(ctx, gpgpu::TexelType::Float, {n, n});
  init.run({{"m", m}});
  // The texture the first pass rendered holds M exactly (integers below 2^17).
  const auto m_values = m.to_vector<float>();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      ASSERT_EQ(m_values[i * n + j], static_cast<float>(1000 * i + j));
    }
  }
  std::vector<float> r(n * n, poison_float());
  square.run({{"m", m}, {"r", r}}, n, n);

  // float64 is exact here: the terms and partial sums are integers below 2^53.
  // float32: each element is a 128-term dot product of values below 1.3e5 (exact in
  // float32); every product and sum rounds once (an FMA only removes roundings), so the
  // error is at most gamma(128) = 128 u / (1 - 128 u) ~ 7.6e-6 times sum |M(i,k) M(k,j)|,
  // which is R(i, j) itself since every term is positive.
  const double u = gpgpu::test::eps32, bound = 128 * u / (1 - 128 * u);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      std::int64_t exact = 0;
      double float64 = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const auto a = static_cast<std::int64_t>(1000 * i + k),
                   b = static_cast<std::int64_t>(1000 * k + j);
        exact += a * b;
        float64 += static_cast<double>(a) * static_cast<double>(b);
      }
      ASSERT_EQ(float64, static_cast<double>(exact)) << i << "," << j;
      const double relative = std::abs(r[i * n + j] - float64) / float64;
      ASSERT_LE(relative, bound) << "R(" << i << ", " << j << ") = " << r[i * n + j];
    }
  }
  // The seed's table: the exact column is the seed's "correct expected value".
  const struct {
    std::size_t i, j;
    double expected;
  } table[] = {{1, 1, 8819016128.0},       {10, 12, 81986337536.0},    {20, 30, 163327923840.0},
               {100, 100, 814771692800.0}, {101, 101, 822925428928.0}, {127, 127, 1035012424256.0}};
  std::printf("%-12s %16s %16s %16s\n", "coordinate", "GPU result", "float64 result",
              "relative error");
  for (const auto& row : table) {
    double float64 = 0;
    for (std::size_t k = 0; k < n; ++k) {
      float64 += static_cast<double>(1000 * row.i + k) * static_cast<double>(1000 * k + row.j);
    }
    EXPECT_EQ(float64, row.expected);
    const double gpu = r[row.i * n + row.j];
    std::printf(
        "(%zu, %zu)%*s %16.0f %16.0f %16.1e\n", row.i, row.j,
        static_cast<int>(12 - 4 - std::to_string(row.i).size() - std::to_string(row.j).size()), "",
        gpu, float64, std::abs(gpu - float64) / float64);
  }
}

// The seed's question: two matrices of different shapes, on random shapes and data.
TEST(SeedSamples, MatrixMultiplyOfDifferentShapesByFragmentShader) {
  auto& ctx = context();
  gpgpu::FragmentKernel multiply(ctx, seed::matrix_multiply);
  std::uniform_int_distribution<std::size_t> extent(1, 70);
  for (int trial = 0; trial < 4; ++trial) {
    const std::size_t m = extent(gpgpu::test::rng()), k = extent(gpgpu::test::rng()),
                      n = extent(gpgpu::test::rng());
    SCOPED_TRACE(testing::Message() << m << " x " << k << " times " << k << " x " << n);
    const auto a = gpgpu::test::random_floats(m * k), b = gpgpu::test::random_floats(k * n);
    std::vector<float> c(m * n, poison_float());
    multiply.run({{"A", gpgpu::Texture::from(ctx, gpgpu::TexelType::Float, {m, k}, a)},
                  {"B", gpgpu::Texture::from(ctx, gpgpu::TexelType::Float, {k, n}, b)},
                  {"C", c}},
                 m, n);
    const double gamma_k = static_cast<double>(k) * gpgpu::test::eps32 /
                           (1 - static_cast<double>(k) * gpgpu::test::eps32);
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        double exact = 0, magnitude = 0;
        for (std::size_t t = 0; t < k; ++t) {
          const double term = static_cast<double>(a[i * k + t]) * b[t * n + j];
          exact += term;
          magnitude += std::abs(term);
        }
        // A k-term float32 dot product: within gamma(k) sum |a b| of the exact value.
        ASSERT_NEAR(c[i * n + j], exact, gamma_k * magnitude) << i << "," << j;
      }
    }
  }
}

}  // namespace
