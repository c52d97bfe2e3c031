// A user's program built against an installed gpgpu: one kernel, checked against the CPU.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <gpgpu/gpgpu.hpp>

int main() {
  try {
    gpgpu::Context ctx;
    gpgpu::ComputeKernel multiply(ctx, R"(
      layout(local_size_x = 64) in;
      layout(std430, binding = 0) readonly buffer A { float a[]; };
      layout(std430, binding = 1) readonly buffer B { float b[]; };
      layout(std430, binding = 2) writeonly buffer C { float c[]; };
      void main() {
        uint i = gpgpu_index();
        if (i < gpgpu_count) c[i] = a[i] * b[i];
      })");

    const std::size_t n = 1000;
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(0.5f, 2.0f);
    std::vector<float> a(n), b(n), c(n, -1.0f);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = dist(rng);
      b[i] = dist(rng);
    }
    multiply.run({{"a", a}, {"b", b}, {"c", gpgpu::out(c)}});

    // One float32 rounding per product: |c - a b| <= 2^-24 |a b|.
    for (std::size_t i = 0; i < n; ++i) {
      const double exact = static_cast<double>(a[i]) * b[i];
      if (!(std::abs(c[i] - exact) <= std::ldexp(std::abs(exact), -24))) {
        std::fprintf(stderr, "c[%zu] = %.9g, expected %.9g\n", i, c[i], exact);
        return 1;
      }
    }
    std::printf("installed gpgpu works on %s: %zu products correct\n", ctx.info().renderer.c_str(),
                n);
    return 0;
  } catch (const gpgpu::Error& e) {
    std::fprintf(stderr, "gpgpu error: %s\n", e.what());
    return 1;
  }
}
