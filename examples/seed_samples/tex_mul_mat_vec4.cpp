// Seed sample TexMulMatVec4 (gpgpu.js): the same product with B stored transposed, so that
// both operands are read along rows, four values (one vec4 texel) at a time:
//   C[0][0] = (1, 2, 3, 4) . (1, 3, 5, 7) + (5, 6, 7, 8) . (9, 11, 13, 15)
// Each matrix row of 8 floats is one texture row of 2 vec4 texels. No `zero` input: the
// element count comes from C.
#include <gpgpu/gpgpu.hpp>

#include "print.hpp"
#include "seed_shaders.hpp"

int main() {
  gpgpu::Context ctx;

  std::vector<float> A = {1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18};
  // B transposed: row c holds column c of B.
  std::vector<float> B = {1, 3, 5, 7, 9, 11, 13, 15, 2, 4, 6, 8, 10, 12, 14, 16};
  std::vector<float> C(2 * 2);

  gpgpu::js::GPGPU gpgpu(ctx);
  gpgpu.compute({.id = "TexMulMatVec4",
                 .vertex_shader = seed::tex_mul_mat_vec4,
                 .args = {{"A", gpgpu.make_texture_info("vec4", {2, 2}, A)},
                          {"B", gpgpu.make_texture_info("vec4", {2, 2}, B)},
                          {"C", C}}});
  gpgpu.clear("TexMulMatVec4");

  // The seed checks against a CPU loop, C2.
  std::vector<float> C2(2 * 2);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 2; ++c) {
      float sum = 0;
      for (int i = 0; i < 8; ++i) sum += A[r * 8 + i] * B[c * 8 + i];
      C2[r * 2 + c] = sum;
    }
  }
  seed::print("C", C);
  seed::print("C2", C2);
}
