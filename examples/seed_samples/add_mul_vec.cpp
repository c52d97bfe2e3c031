// Seed sample AddMulVec (gpgpu.js): two outputs in one pass, C = A + B and D = A * B.
#include <gpgpu/gpgpu.hpp>

#include "print.hpp"
#include "seed_shaders.hpp"

int main() {
  gpgpu::Context ctx;

  std::vector<float> A = {10, 20, 30, 40, 50, 60};
  std::vector<float> B = {1, 2, 3, 4, 5, 6};
  // Inputs and outputs have the same number of elements (6).
  std::vector<float> C(6), D(6);

  gpgpu::js::GPGPU gpgpu(ctx);
  gpgpu.compute({.id = "AddMulVec",
                 .vertex_shader = seed::add_mul_vec,
                 .args = {{"A", A}, {"B", B}, {"C", C}, {"D", D}}});
  gpgpu.clear("AddMulVec");

  seed::print("A", A);
  seed::print("B", B);
  seed::print("C = A + B", C);
  seed::print("D = A * B", D);
}
