// Seed sample AddVec (gpgpu.js): C = A + B on the GPU, element by element.
#include <gpgpu/gpgpu.hpp>

#include "print.hpp"
#include "seed_shaders.hpp"

int main() {
  gpgpu::Context ctx;

  // The inputs; the output has as many elements (6).
  std::vector<float> A = {10, 20, 30, 40, 50, 60};
  std::vector<float> B = {1, 2, 3, 4, 5, 6};
  std::vector<float> C(6);

  gpgpu::js::GPGPU gpgpu(ctx);
  gpgpu.compute(
      {.id = "AddVec", .vertex_shader = seed::add_vec, .args = {{"A", A}, {"B", B}, {"C", C}}});
  gpgpu.clear("AddVec");

  seed::print("A", A);
  seed::print("B", B);
  seed::print("C = A + B", C);
}
