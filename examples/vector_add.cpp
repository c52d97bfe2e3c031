// vector_add — the smallest gpgpu program: c = a + b on the GPU.
//
// You write the GLSL body of a compute shader; gpgpu compiles it, binds your arrays to the
// storage blocks by name, runs one invocation per element and copies c back.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <gpgpu/gpgpu.hpp>

int main() {
  try {
    gpgpu::Context ctx;  // a GPU if there is one, else Mesa llvmpipe on the CPU
    std::printf("device: %s\n", ctx.info().renderer.c_str());

    gpgpu::ComputeKernel add(ctx, R"(
      layout(local_size_x = 128) in;
      layout(std430, binding = 0) readonly buffer A { float a[]; };
      layout(std430, binding = 1) readonly buffer B { float b[]; };
      layout(std430, binding = 2) writeonly buffer C { float c[]; };
      void main() {
        uint i = gpgpu_index();          // this invocation's element
        if (i < gpgpu_count) c[i] = a[i] + b[i];  // the last work group may run past the end
      })");

    const std::size_t n = 1'000'000;
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
    std::vector<float> a(n), b(n), c(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = dist(rng);
      b[i] = dist(rng);
    }

    // const arrays are inputs; gpgpu::out(c) is written back and never uploaded. The number of
    // invocations is the arrays' common length.
    add.run({{"a", a}, {"b", b}, {"c", gpgpu::out(c)}});

    // Check every element against double precision: one float32 rounding per sum, so
    // |c - (a + b)| <= 2^-24 |a + b|.
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double exact = static_cast<double>(a[i]) + b[i];
      if (!(std::abs(c[i] - exact) <= std::ldexp(std::abs(exact), -24))) {
        if (wrong++ < 5) std::fprintf(stderr, "c[%zu] = %.9g, expected %.9g\n", i, c[i], exact);
      }
    }
    std::printf("c[0] = %g + %g = %g\n", a[0], b[0], c[0]);
    if (wrong != 0) {
      std::fprintf(stderr, "FAILED: %zu of %zu sums are wrong\n", wrong, n);
      return 1;
    }
    std::printf("OK: all %zu sums correct\n", n);
    return 0;
  } catch (const gpgpu::Error& e) {  // every gpgpu failure says what to change
    std::fprintf(stderr, "gpgpu error: %s\n", e.what());
    return 1;
  }
}
