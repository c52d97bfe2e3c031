// saxpy — y = alpha * x + y, with alpha passed as a uniform.
//
// Uniforms are bound by name like arrays: {"alpha", 2.5f}. y is a non-const array, so gpgpu
// uploads it, lets the kernel update it in place and writes it back.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <gpgpu/gpgpu.hpp>

int main() {
  try {
    gpgpu::Context ctx;
    std::printf("device: %s\n", ctx.info().renderer.c_str());

    gpgpu::ComputeKernel saxpy(ctx, R"(
      layout(local_size_x = 128) in;
      layout(std430, binding = 0) readonly buffer X { float x[]; };
      layout(std430, binding = 1) buffer Y { float y[]; };  // read and written
      uniform float alpha;
      void main() {
        uint i = gpgpu_index();
        if (i < gpgpu_count) y[i] = alpha * x[i] + y[i];
      })");

    const std::size_t n = 1'000'000;
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const float alpha = 2.5f;
    std::vector<float> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = dist(rng);
      y[i] = dist(rng);
    }
    const std::vector<float> y_before = y;  // for the check below

    saxpy.run({{"x", x}, {"y", y}, {"alpha", alpha}});  // y is inout: non-const

    // Reference in double. float32 rounds the product and the sum (or once, if the driver
    // fuses them into an fma): |y - exact| <= 2 * 2^-24 * (|alpha x| + |y_before|).
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double ax = static_cast<double>(alpha) * x[i];
      const double exact = ax + y_before[i];
      const double bound = 2 * std::ldexp(std::abs(ax) + std::abs(y_before[i]), -24);
      if (!(std::abs(y[i] - exact) <= bound)) {
        if (wrong++ < 5) std::fprintf(stderr, "y[%zu] = %.9g, expected %.9g\n", i, y[i], exact);
      }
    }
    std::printf("y[0] = %g * %g + %g = %g\n", alpha, x[0], y_before[0], y[0]);
    if (wrong != 0) {
      std::fprintf(stderr, "FAILED: %zu of %zu results are wrong\n", wrong, n);
      return 1;
    }
    std::printf("OK: all %zu results correct\n", n);
    return 0;
  } catch (const gpgpu::Error& e) {
    std::fprintf(stderr, "gpgpu error: %s\n", e.what());
    return 1;
  }
}
