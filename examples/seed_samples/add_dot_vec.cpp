// Seed sample AddDotVec (gpgpu.js): vec3 elements. A, B and C hold 2 vec3s (6 floats), D
// holds 2 floats: every argument has 2 elements.
#include <gpgpu/gpgpu.hpp>

#include "print.hpp"
#include "seed_shaders.hpp"

int main() {
  gpgpu::Context ctx;

  std::vector<float> A = {1, 2, 3, 4, 5, 6};
  std::vector<float> B = {10, 20, 30, 40, 50, 60};
  std::vector<float> C(6);  // 2 vec3s
  std::vector<float> D(2);  // 2 floats

  gpgpu::js::GPGPU gpgpu(ctx);
  gpgpu.compute({.id = "AddDotVec",
                 .vertex_shader = seed::add_dot_vec,
                 .args = {{"A", A}, {"B", B}, {"C", C}, {"D", D}}});
  gpgpu.clear("AddDotVec");

  seed::print("A", A);
  seed::print("B", B);
  seed::print("C = A + B", C);
  seed::print("D = dot(A, B)", D);
}
