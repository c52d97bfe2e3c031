// Seed sample TexMulMat (gpgpu.js): C (2 x 2) = A (2 x 8) B (8 x 2) with both matrices in
// float textures, read with texelFetch; one vertex computes one element of C.
// Texture data is row-major: row r of A is A[8 r .. 8 r + 7].
#include <gpgpu/gpgpu.hpp>

#include "print.hpp"
#include "seed_shaders.hpp"

int main() {
  gpgpu::Context ctx;

  std::vector<float> A = {1,  2,  3,  4,  5,  6,  7,  8,                           // row 0
                          11, 12, 13, 14, 15, 16, 17, 18};                         // row 1
  std::vector<float> B = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};  // 8 rows of 2
  std::vector<float> C(2 * 2);

  gpgpu::js::GPGPU gpgpu(ctx);
  gpgpu.compute(
      {.id = "TexMulMat",
       .vertex_shader = seed::tex_mul_mat,
       .args = {{"zero", std::vector<float>(2 * 2)},  // optional in gpgpu; kept as in the seed
                {"A", gpgpu.make_texture_info("float", {2, 8}, A)},
                {"B", gpgpu.make_texture_info("float", {8, 2}, B)},
                {"C", C}}});
  gpgpu.clear("TexMulMat");

  seed::print_rows("C = A B", C, 2);
}
