// Seed sample UniMul (gpgpu.js): a uniform B shared by every element, C = B * A.
#include <gpgpu/gpgpu.hpp>

#include <iostream>

#include "print.hpp"
#include "seed_shaders.hpp"

int main() {
  gpgpu::Context ctx;

  std::vector<float> A = {1, 2, 3, 4, 5, 6};
  float B = 3;
  std::vector<float> C(6);

  gpgpu::js::GPGPU gpgpu(ctx);
  gpgpu.compute(
      {.id = "UniMul", .vertex_shader = seed::uni_mul, .args = {{"A", A}, {"B", B}, {"C", C}}});
  gpgpu.clear("UniMul");

  seed::print("A", A);
  std::cout << "B = " << B << '\n';
  seed::print("C = B * A", C);
}
