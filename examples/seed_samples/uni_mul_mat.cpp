// Seed sample UniMulMat (gpgpu.js): a uniform mat3 times each vec3 element.
//
// GLSL matrices are column-major: the 9 values {1, ..., 9} fill B column by column,
//     | 1 4 7 |
// B = | 2 5 8 |   so B * (1, 2, 3) = (30, 36, 42) and B * (4, 5, 6) = (66, 81, 96).
//     | 3 6 9 |
// Texture data, by contrast, is row-major (see TexMulMat). To pass a row-major C array
// as a matrix, wrap it in gpgpu::row_major(...) and gpgpu transposes it.
#include <gpgpu/gpgpu.hpp>

#include <array>

#include "print.hpp"
#include "seed_shaders.hpp"

int main() {
  gpgpu::Context ctx;

  std::vector<float> A = {1, 2, 3, 4, 5, 6};  // two vec3s
  std::array<float, 9> B = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> C(6);

  gpgpu::js::GPGPU gpgpu(ctx);
  gpgpu.compute({.id = "UniMulMat",
                 .vertex_shader = seed::uni_mul_mat,
                 .args = {{"A", A}, {"B", B}, {"C", C}}});
  gpgpu.clear("UniMulMat");

  seed::print_rows("A", A, 3);
  seed::print_rows("B (as given: column-major, each line is a column)",
                   std::vector<float>(B.begin(), B.end()), 3);
  seed::print_rows("C = B * A", C, 3);
}
