// The question seed 002 leaves open: "How would you modify this algorithm to multiply two
// different matrices?" With A (m x k) and B (k x n) in two textures, render into an m x n
// grid (the viewport is the OUTPUT's shape, not the inputs'), and loop over the k columns
// of A, which are the k rows of B. Bounds come from textureSize, so one shader serves every
// shape.
#include <gpgpu/gpgpu.hpp>

#include <iostream>

#include "print.hpp"
#include "seed_shaders.hpp"

int main() {
  gpgpu::Context ctx;
  const std::size_t m = 2, k = 3, n = 4;
  const std::vector<float> A = {1, 2, 3,  // 2 x 3, row-major
                                4, 5, 6};
  const std::vector<float> B = {1, 0, 2, -1,  // 3 x 4, row-major
                                0, 1, 3, 1,  2, 1, 0, 5};
  std::vector<float> C(m * n);

  gpgpu::FragmentKernel multiply(ctx, seed::matrix_multiply, {}, "matrix multiply");
  multiply.run({{"A", gpgpu::Texture::from(ctx, gpgpu::TexelType::Float, {m, k}, A)},
                {"B", gpgpu::Texture::from(ctx, gpgpu::TexelType::Float, {k, n}, B)},
                {"C", C}},
               m, n);

  std::vector<float> expected(m * n, 0.0f);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t t = 0; t < k; ++t) expected[i * n + j] += A[i * k + t] * B[t * n + j];
    }
  }
  seed::print_rows("A (2 x 3)", A, k);
  seed::print_rows("B (3 x 4)", B, n);
  seed::print_rows("C = A B (2 x 4), fragment shader", C, n);
  seed::print_rows("C on the CPU", expected, n);
  return C == expected ? 0 : 1;  // small integers: exact on both
}
