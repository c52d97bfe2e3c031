// Seed sample (GPGPUtility, seed 002): square a 128 x 128 matrix with a fragment shader,
// M(i, j) = 1000 i + j (0-based, i the row), and compare with float64.
//
// Pass 1 renders M into a texture; pass 2 reads that texture and renders R = M^2, one
// fragment per element. The first pass's target is the second pass's input: the texture
// never leaves the GPU.
//
// The float64 column is exact: every M(i, k) M(k, j) and every partial sum is an integer
// below 2^53 (R is at most about 1.1e12), which the program checks against int64
// arithmetic. The GPU column is float32: M's values (< 2^17) are exact, but each of the 128
// products and sums rounds, so its relative error is at most gamma(128) = 128 u / (1 - 128 u)
// ~ 7.6e-6 (u = 2^-24; all terms are positive, so the bound is relative to R itself).
#include <gpgpu/gpgpu.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "seed_shaders.hpp"

int main() {
  gpgpu::Context ctx;
  const std::size_t n = 128;

  gpgpu::FragmentKernel init(ctx, seed::matrix_init, {}, "matrix init");
  gpgpu::FragmentKernel square(ctx, seed::matrix_square, {}, "matrix square");
  gpgpu::Texture m(ctx, gpgpu::TexelType::Float, {n, n});
  std::vector<float> r(n * n);
  init.run({{"m", m}});                    // the grid is m's shape: 128 x 128
  square.run({{"m", m}, {"r", r}}, n, n);  // read back row-major

  // Exact integers, and float64 as the seed's JavaScript computed it.
  auto exact = [&](std::int64_t i, std::int64_t j) {
    std::int64_t sum = 0;
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(n); ++k) {
      sum += (1000 * i + k) * (1000 * k + j);
    }
    return sum;
  };
  auto float64 = [&](std::size_t i, std::size_t j) {
    const auto di = static_cast<double>(i), dj = static_cast<double>(j);
    double sum = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const auto dk = static_cast<double>(k);
      sum += (1000.0 * di + dk) * (1000.0 * dk + dj);
    }
    return sum;
  };

  std::printf("%s\n", ctx.info().renderer.c_str());
  std::printf("%-12s %16s %16s %16s\n", "coordinate", "GPU result", "float64 result",
              "relative error");
  const std::size_t points[][2] = {{1, 1}, {10, 12}, {20, 30}, {100, 100}, {101, 101}, {127, 127}};
  for (const auto& p : points) {
    const std::size_t i = p[0], j = p[1];
    const double gpu = r[i * n + j];
    const double truth = float64(i, j);
    char coordinate[32];
    std::snprintf(coordinate, sizeof coordinate, "(%zu, %zu)", i, j);
    std::printf("%-12s %16.0f %16.0f %16.1e\n", coordinate, gpu, truth,
                std::abs(gpu - truth) / truth);
  }

  // Over all 16384 elements: float64 against exact integers, the GPU against the bound.
  const double u = std::ldexp(1.0, -24), bound = 128 * u / (1 - 128 * u);
  std::size_t float64_mismatches = 0, over_bound = 0;
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const std::int64_t e = exact(static_cast<std::int64_t>(i), static_cast<std::int64_t>(j));
      if (float64(i, j) != static_cast<double>(e)) ++float64_mismatches;
      const double relative =
          std::abs(r[i * n + j] - static_cast<double>(e)) / static_cast<double>(e);
      worst = std::max(worst, relative);
      if (relative > bound) ++over_bound;
    }
  }
  std::printf("float64 equals exact int64 arithmetic at %zu of %zu elements\n",
              n * n - float64_mismatches, n * n);
  std::printf("largest GPU relative error %.1e; float32 bound gamma(128) = %.1e; over it: %zu\n",
              worst, bound, over_bound);
  return float64_mismatches == 0 && over_bound == 0 ? 0 : 1;
}
