// The same computations through the three ways gpgpu runs GLSL: transform feedback
// (vertex shader), fragment shader (render to texture) and compute shader. Each result is
// checked against a float64 reference on fresh random data, at every element.
#include <gtest/gtest.h>

#include <cmath>

#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/fragment_kernel.hpp"
#include "gpgpu/texture.hpp"
#include "gpgpu/transform_feedback_kernel.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::TexelType;
using gpgpu::Texture;
using gpgpu::test::context;
using gpgpu::test::eps32;
using gpgpu::test::poison_float;

// Error bound of n float32 operations feeding one result, relative to the sum of the
// magnitudes of the terms: gamma(n) = n u / (1 - n u) (Higham, Accuracy and Stability of
// Numerical Algorithms, 3.1). An FMA only removes roundings, so it stays within the bound.
double gamma(std::size_t n) {
  const double nu = static_cast<double>(n) * eps32;
  return nu / (1 - nu);
}

TEST(ThreePaths, Saxpy) {
  auto& ctx = context();
  const std::size_t n = 4099;  // prime: no path gets a multiple of anything
  const float alpha = gpgpu::test::random_floats(1, -3, 3)[0];
  const auto x = gpgpu::test::random_floats(n, -100, 100),
             y = gpgpu::test::random_floats(n, -100, 100);

  gpgpu::TransformFeedbackKernel tf(ctx, R"(
    in float x;
    in float y;
    uniform float alpha;
    out float result;
    void main() { result = alpha * x + y; })");
  std::vector<float> by_tf(n, poison_float());
  tf.run({{"x", x}, {"y", y}, {"alpha", alpha}, {"result", by_tf}});

  // The fragment path reads 1-D arrays from wrapped textures and writes a wrapped 1-D grid;
  // rows of 64 (inputs) and 100 (output) force the wrapping on any device.
  gpgpu::FragmentKernel fragment(ctx, R"(
    uniform sampler2D x;
    uniform sampler2D y;
    uniform float alpha;
    out float result;
    void main() {
      int i = gpgpu_index();
      result = alpha * gpgpu_fetch(x, i).r + gpgpu_fetch(y, i).r;
    })");
  fragment.set_max_width(100);
  std::vector<float> by_fragment(n, poison_float());
  fragment.run({{"x", Texture::from_array(ctx, TexelType::Float, x, 64)},
                {"y", Texture::from_array(ctx, TexelType::Float, y, 64)},
                {"alpha", alpha},
                {"result", by_fragment}});

  gpgpu::ComputeKernel compute(ctx, R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) readonly buffer X { float x[]; };
    layout(std430, binding = 1) readonly buffer Y { float y[]; };
    layout(std430, binding = 2) writeonly buffer R { float result[]; };
    uniform float alpha;
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) result[i] = alpha * x[i] + y[i];
    })");
  std::vector<float> by_compute(n, poison_float());
  compute.run({{"x", x}, {"y", y}, {"alpha", alpha}, {"result", gpgpu::out(by_compute)}});

  for (std::size_t i = 0; i < n; ++i) {
    const double ax = static_cast<double>(alpha) * x[i], exact = ax + y[i];
    // A product and a sum: gamma(2) (|alpha x| + |y|).
    const double tolerance = gamma(2) * (std::abs(ax) + std::abs(y[i]));
    ASSERT_NEAR(by_tf[i], exact, tolerance) << "transform feedback, element " << i;
    ASSERT_NEAR(by_fragment[i], exact, tolerance) << "fragment, element " << i;
    ASSERT_NEAR(by_compute[i], exact, tolerance) << "compute, element " << i;
  }
}

TEST(ThreePaths, MatrixProductOfOddShapes) {
  auto& ctx = context();
  const std::size_t m = 37, k = 53, n = 29;  // C (m x n) = A (m x k) B (k x n)
  const auto a = gpgpu::test::random_floats(m * k), b = gpgpu::test::random_floats(k * n);
  const auto ta = Texture::from(ctx, TexelType::Float, {m, k}, a);
  const auto tb = Texture::from(ctx, TexelType::Float, {k, n}, b);

  // Transform feedback: one vertex per element of C, row-major.
  gpgpu::TransformFeedbackKernel tf(ctx, R"(
    uniform sampler2D A;
    uniform sampler2D B;
    out float C;
    void main() {
      int n = textureSize(B, 0).x, k = textureSize(A, 0).x;
      int row = gpgpu_index() / n, col = gpgpu_index() % n;
      float sum = 0.0;
      for (int t = 0; t < k; ++t) sum += texelFetch(A, ivec2(t, row), 0).r * texelFetch(B, ivec2(col, t), 0).r;
      C = sum;
    })");
  std::vector<float> by_tf(m * n, poison_float());
  tf.run({{"A", ta}, {"B", tb}, {"C", by_tf}});

  // Fragment: one fragment per element of an m x n grid.
  gpgpu::FragmentKernel fragment(ctx, R"(
    uniform sampler2D A;
    uniform sampler2D B;
    out float C;
    void main() {
      ivec2 p = gpgpu_coord();  // (column, row) of C
      int k = textureSize(A, 0).x;
      float sum = 0.0;
      for (int t = 0; t < k; ++t) sum += texelFetch(A, ivec2(t, p.y), 0).r * texelFetch(B, ivec2(p.x, t), 0).r;
      C = sum;
    })");
  std::vector<float> by_fragment(m * n, poison_float());
  fragment.run({{"A", ta}, {"B", tb}, {"C", by_fragment}}, m, n);

  // Compute: one invocation per element of C, from storage buffers.
  gpgpu::ComputeKernel compute(ctx, R"(
    layout(local_size_x = 8, local_size_y = 8) in;
    layout(std430, binding = 0) readonly buffer A { float a[]; };
    layout(std430, binding = 1) readonly buffer B { float b[]; };
    layout(std430, binding = 2) writeonly buffer C { float c[]; };
    uniform int M, K, N;
    void main() {
      int col = int(gl_GlobalInvocationID.x), row = int(gl_GlobalInvocationID.y);
      if (row >= M || col >= N) return;
      float sum = 0.0;
      for (int t = 0; t < K; ++t) sum += a[row * K + t] * b[t * N + col];
      c[row * N + col] = sum;
    })");
  std::vector<float> by_compute(m * n, poison_float());
  compute.run({{"a", a},
               {"b", b},
               {"c", gpgpu::out(by_compute)},
               {"M", static_cast<std::int32_t>(m)},
               {"K", static_cast<std::int32_t>(k)},
               {"N", static_cast<std::int32_t>(n)}},
              gpgpu::Size3{n, m, 1});

  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      double exact = 0, magnitude = 0;
      for (std::size_t t = 0; t < k; ++t) {
        const double term = static_cast<double>(a[i * k + t]) * b[t * n + j];
        exact += term;
        magnitude += std::abs(term);
      }
      // A k-term dot product: gamma(k) sum |a b|.
      const double tolerance = gamma(k) * magnitude;
      const std::size_t e = i * n + j;
      ASSERT_NEAR(by_tf[e], exact, tolerance) << "transform feedback, C(" << i << ", " << j << ")";
      ASSERT_NEAR(by_fragment[e], exact, tolerance) << "fragment, C(" << i << ", " << j << ")";
      ASSERT_NEAR(by_compute[e], exact, tolerance) << "compute, C(" << i << ", " << j << ")";
    }
  }
}

}  // namespace
