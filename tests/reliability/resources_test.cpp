// Resources stay flat under repetition: 10^4 runs, 10^3 Contexts, 500 distinct kernels.
//
// Growth is measured as resident memory (VmRSS: heap, and the JIT code llvmpipe maps for
// each compiled shader) between a warmed-up point and the end, divided by the iterations in
// between, and compared with what one leaked object of the kind would cost: a GL buffer or a
// pair of temporary arrays per run, an EGL context per Context (hundreds of KB on llvmpipe),
// a compiled program per kernel (about 100 KB of JIT code on llvmpipe). The bounds sit well
// below those costs and well above the allocator's noise. Sanitized builds run this with
// ASan's quarantine off (tests/reliability_tests.cmake), or freed memory would look leaked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gpgpu/gpgpu.hpp"
#include "test_support.hpp"

namespace {

namespace test = gpgpu::test;

double resident_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6));
  }
  return 0;
}

constexpr const char* add_source = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) buffer B { float b[]; };
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) b[i] += a[i]; })";

TEST(Resources, TenThousandRunsStayFlat) {
  auto& ctx = test::context();
  gpgpu::ComputeKernel add(ctx, add_source);
  const auto a = test::random_floats(256, 1.0f, 2.0f);
  std::vector<float> b(256, 1.0f);
  auto buffer = gpgpu::Buffer::from(ctx, a);
  auto run = [&] {
    add.run({{"a", a}, {"b", b}});       // host arrays: two temporary GL buffers per run
    add.run({{"a", buffer}, {"b", b}});  // a Buffer and a host array
  };
  for (int i = 0; i < 1000; ++i) run();
  const double warm = resident_kib();
  for (int i = 1000; i < 10000; ++i) run();
  const double growth_per_run = (resident_kib() - warm) * 1024 / 9000;
  std::printf("resident %.0f KiB after 1000 runs, %+.1f bytes per run after\n", warm,
              growth_per_run);
  EXPECT_LT(growth_per_run, 200) << "bytes per run; resident " << warm << " KiB after warm-up";
  // b = 1 + 20000 a, summed in float32 20000 times: each addition rounds by at most
  // eps32 * |b|, |b| < 1 + 20000 * 2, so the sum errs by at most 20000 * eps32 * 40001.
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double exact = 1.0 + 20000.0 * a[i];
    ASSERT_NEAR(b[i], exact, 20000 * test::eps32 * 40001) << i;
  }
}

TEST(Resources, AThousandContextsStayFlat) {
  // The shared Context keeps the EGL display initialised, as any long-lived program would.
  test::context();
  auto make_and_use = [](int i) {
    gpgpu::Context ctx;
    if (i % 10 == 0) {  // every tenth compiles and runs a kernel (compiles are slow on llvmpipe)
      gpgpu::ComputeKernel add(ctx, add_source);
      std::vector<float> a(64, 1.0f), b(64, 2.0f);
      add.run({{"a", a}, {"b", b}});
      for (float v : b) ASSERT_EQ(v, 3.0f);
    }
  };
  for (int i = 0; i < 100; ++i) make_and_use(i);
  const double warm = resident_kib();
  for (int i = 100; i < 1000; ++i) make_and_use(i);
  test::context().make_current();
  const double growth_per_context = (resident_kib() - warm) * 1024 / 900;
  std::printf("resident %.0f KiB after 100 Contexts, %+.1f bytes per Context after\n", warm,
              growth_per_context);
  EXPECT_LT(growth_per_context, 8 * 1024)
      << "bytes per Context; resident " << warm << " KiB after warm-up";
}

// 500 kernels of distinct sources, each made, run once and dropped, as a program generating
// kernels would: the program cache keeps at most its limit, so memory stops growing. After
// 100 kernels of warm-up, growth is measured over two windows of 200 and the smaller counts:
// a leak grows in both, a one-off step in one. After the tests before it (ASan, es31-minimum)
// one window read up to 24 KiB per kernel, where the test alone reads 0.6-1.2 KiB and its
// repeats 0.1 KiB: a new block of the driver's or the allocator's memory, not a leak.
TEST(Resources, FiveHundredKernelsStayFlatWithABoundedCache) {
  gpgpu::Context ctx({.program_cache_limit = 32});
  auto make_and_run = [&](int i) {
    gpgpu::ComputeKernel k(ctx, std::string(add_source) + "\n// kernel " + std::to_string(i));
    std::vector<float> a(64, 1.0f), b(64, 2.0f);
    k.run({{"a", a}, {"b", b}});
    for (float v : b) ASSERT_EQ(v, 3.0f);
  };
  for (int i = 0; i < 100; ++i) make_and_run(i);
  EXPECT_EQ(ctx.cached_program_count(), 32u);
  double least = 0;  // bytes per kernel, the smaller window's
  for (int window = 0; window < 2; ++window) {
    const double before = resident_kib();
    for (int i = 100 + 200 * window; i < 300 + 200 * window; ++i) make_and_run(i);
    EXPECT_EQ(ctx.cached_program_count(), 32u);
    const double growth = (resident_kib() - before) * 1024 / 200;
    std::printf("resident %.0f KiB before window %d, %+.1f bytes per kernel in it\n", before,
                window + 1, growth);
    least = window == 0 ? growth : std::min(least, growth);
  }
  EXPECT_LT(least, 20 * 1024) << "bytes per kernel in both windows";
  // A cached program is reused, an evicted one recompiled: both still compute.
  make_and_run(499);
  make_and_run(0);
  ctx.clear_program_cache();
  EXPECT_EQ(ctx.cached_program_count(), 0u);
}

}  // namespace
