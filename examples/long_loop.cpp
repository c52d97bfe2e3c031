// long_loop — a loop longer than the device lets one shader invocation run.
//
// Mesa's llvmpipe (the CPU device) ends every shader loop silently after 65535 iterations,
// counting all the loops of an invocation together, so nesting loops does not help:
// `for (uint t = 0u; t < 200000u; ++t)` simply stops early and the result is wrong, with no
// error. ctx.info().max_loop_iterations says whether the device does this (0: it does not).
// ComputeKernel::run_in_passes cuts the loop into passes, each a dispatch with a fresh
// budget; the kernel loops over [gpgpu_pass_begin, gpgpu_pass_end) and carries its sum from
// pass to pass in a read-write array. On a GPU it runs in one pass.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <gpgpu/gpgpu.hpp>

int main() {
  try {
    gpgpu::Context ctx;
    const auto& info = ctx.info();
    std::printf(
        "device: %s; loop cap: %s\n", info.renderer.c_str(),
        info.max_loop_iterations == 0
            ? "none"
            : (std::to_string(info.max_loop_iterations) + " iterations per invocation").c_str());

    gpgpu::ComputeKernel long_sum(ctx, R"(
      layout(local_size_x = 64) in;
      layout(std430, binding = 0) readonly buffer X { float x[]; };
      layout(std430, binding = 1) buffer Sums { float sums[]; };  // read-write: carried over
      void main() {
        uint i = gpgpu_index();
        if (i >= gpgpu_count) return;
        float sum = gpgpu_pass_begin == 0u ? 0.0 : sums[i];
        for (uint t = gpgpu_pass_begin; t < gpgpu_pass_end; ++t) {
          sum += x[(i + t) % uint(x.length())];
        }
        sums[i] = sum;
      })");

    const std::uint32_t length = 200'000;  // three times llvmpipe's cap
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(0.5f, 1.0f);
    std::vector<float> x(length);
    for (auto& v : x) v = dist(rng);
    std::vector<float> sums(64, 0.0f);

    long_sum.run_in_passes({{"x", x}, {"sums", sums}}, sums.size(), length);

    // A sequential float32 sum of n positive terms errs by at most n * 2^-24 * the sum.
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < sums.size(); ++i) {
      double exact = 0;
      for (std::size_t t = 0; t < length; ++t) exact += x[(i + t) % length];
      if (!(std::abs(sums[i] - exact) <= length * std::ldexp(exact, -24))) {
        if (wrong++ < 5)
          std::fprintf(stderr, "sums[%zu] = %.9g, expected %.9g\n", i, sums[i], exact);
      }
    }
    std::printf("sums[0] = %.6g (%u terms)\n", sums[0], length);
    if (wrong != 0) {
      std::fprintf(stderr, "FAILED: %zu of %zu sums are wrong\n", wrong, sums.size());
      return 1;
    }
    std::printf("OK: all %zu sums of %u terms correct\n", sums.size(), length);
    return 0;
  } catch (const gpgpu::Error& e) {
    std::fprintf(stderr, "gpgpu error: %s\n", e.what());
    return 1;
  }
}
