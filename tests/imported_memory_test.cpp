// Buffers over memory imported from Vulkan (ContextOptions::imported_buffer_bytes,
// gl/buffer_memory.hpp). A Context asked to import from 1 MiB on makes its large Buffers there
// where the device can (zink over lavapipe does; Mesa's llvmpipe refuses the import, and the
// Buffer gets GL's memory, with the reason kept): either way every upload, download, copy, run
// and sort must give the same words. Random data, poisoned outputs, every word compared
// exactly: the operations only move words, and x * 2 is exact in float32.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "gl/context_state.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::Buffer;
using gpgpu::ElementType;

constexpr std::size_t mib = std::size_t{1} << 20;

gpgpu::Context& importing_context() {
  static gpgpu::Context ctx([] {
    gpgpu::ContextOptions o;
    o.imported_buffer_bytes = static_cast<std::int64_t>(mib);
    return o;
  }());
  return ctx;
}

bool imported(const Buffer& b) {
  return gpgpu::detail::is_imported_buffer(*b.context_state(), b.gl_name());
}

// Whether this device must import: zink is GL on Vulkan, whose memory it exports itself.
bool must_import(const gpgpu::Context& ctx) {
  return ctx.info().renderer.rfind("zink", 0) == 0;
}

TEST(ImportedMemory, LargeBuffersKeepEveryWordThroughEveryTransfer) {
  SCOPED_TRACE(gpgpu::test::seed());
  auto& ctx = importing_context();
  const std::size_t n = 3 * mib / 4 + 5;  // 3 MiB + 20 bytes: imported; not a whole chunk
  const auto words = gpgpu::test::random_uints(n, 0, 0xffffffffu);
  Buffer a(ctx, ElementType::Uint32, n);
  Buffer small(ctx, ElementType::Uint32, 1000);  // below the threshold: GL's memory
  EXPECT_FALSE(imported(small));
  const auto& state = *ctx.state();
  if (must_import(ctx)) {
    ASSERT_TRUE(imported(a)) << "zink did not import: " << state.buffer_memory_why;
  } else if (!imported(a)) {
    EXPECT_FALSE(state.buffer_memory_why.empty()) << "no import, and no reason kept";
    std::cout << "GL's memory on " << ctx.info().renderer << ": " << state.buffer_memory_why
              << "\n";
  }
  a.upload(words);
  EXPECT_EQ(a.to_vector<std::uint32_t>(), words) << "whole upload and download";
  // A few words in the middle: the small-transfer paths (glBufferSubData, a direct read).
  const std::vector<std::uint32_t> patch{1u, 2u, 3u, 0xdeadbeefu};
  a.upload(patch, 123'457);
  auto expected = words;
  std::copy(patch.begin(), patch.end(), expected.begin() + 123'457);
  std::vector<std::uint32_t> got(7, gpgpu::test::poison_uint);
  a.download(std::span<std::uint32_t>(got), 123'455);
  EXPECT_TRUE(std::equal(got.begin(), got.end(), expected.begin() + 123'455)) << "ranges";
  // Device copies between imported and ordinary memory, both ways.
  Buffer b(ctx, ElementType::Uint32, n);
  b.upload(std::vector<std::uint32_t>(n, gpgpu::test::poison_uint));
  b.copy_from(a, 0, 0, n);
  EXPECT_EQ(b.to_vector<std::uint32_t>(), expected) << "copy between imported buffers";
  small.copy_from(a, 5000, 0, 1000);
  EXPECT_TRUE(std::equal(expected.begin() + 5000, expected.begin() + 6000,
                         small.to_vector<std::uint32_t>().begin()))
      << "copy from imported into GL's memory";
}

TEST(ImportedMemory, KernelsAndSortsReadAndWriteIt) {
  SCOPED_TRACE(gpgpu::test::seed());
  auto& ctx = importing_context();
  const std::size_t n = mib / 2 + 3;  // 2 MiB of floats
  const auto x = gpgpu::test::random_floats(n);
  Buffer in = Buffer::from(ctx, x);
  Buffer out = Buffer::from(ctx, std::vector<float>(n, gpgpu::test::poison_float()));
  EXPECT_EQ(imported(in), imported(out));
  gpgpu::ComputeKernel twice(ctx, R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] = 2.0 * x[i]; })");
  twice.run({{"x", in}, {"y", out}}, n);
  const auto y = out.to_vector<float>();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 2.0f * x[i]) << i;  // exact
  auto keys = gpgpu::test::random_uints(n, 0, 0xffffffffu);
  Buffer k = Buffer::from(ctx, keys);
  gpgpu::sort(ctx, k);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(k.to_vector<std::uint32_t>(), keys) << "sort over imported memory";
}

TEST(ImportedMemory, MemoryIsFreedWithItsBuffer) {
  auto& ctx = importing_context();
  Buffer probe(ctx, ElementType::Float32, mib);
  const auto& state = *ctx.state();
  if (!imported(probe)) GTEST_SUCCEED() << "nothing imported here: " << state.buffer_memory_why;
  if (!imported(probe)) return;
  const std::size_t before = state.buffer_memory->live_buffers();
  {
    Buffer more(ctx, ElementType::Float32, mib);
    Buffer moved = std::move(more);
    EXPECT_EQ(state.buffer_memory->live_buffers(), before + 1);
  }
  EXPECT_EQ(state.buffer_memory->live_buffers(), before) << "the moved Buffer's memory stayed";
  probe.release();
  EXPECT_EQ(state.buffer_memory->live_buffers(), before - 1);
}

TEST(ImportedMemory, ThresholdsAreHonouredAndCheckedOnTheDefaultDevice) {
  gpgpu::ContextOptions never;
  never.imported_buffer_bytes = 0;
  gpgpu::Context plain(never);
  Buffer big(plain, ElementType::Float32, 2 * mib);
  EXPECT_FALSE(imported(big));
  EXPECT_FALSE(plain.state()->buffer_memory_tried) << "0 must not even open Vulkan";
  gpgpu::ContextOptions wrong;
  wrong.imported_buffer_bytes = -2;
  try {
    gpgpu::Context refused(wrong);
    FAIL() << "imported_buffer_bytes = -2 was accepted";
  } catch (const gpgpu::ContextError& e) {
    EXPECT_NE(std::string(e.what()).find("imported_buffer_bytes is -2"), std::string::npos)
        << e.what();
  }
  // auto: GPGPU_IMPORTED_BUFFER_BYTES where set (the device scripts force imports with it),
  // else never on a software device and 64 MiB on a GPU.
  gpgpu::Context automatic;
  const char* env = std::getenv("GPGPU_IMPORTED_BUFFER_BYTES");
  const std::size_t expected = env != nullptr && *env
                                   ? std::stoull(env)
                                   : (automatic.info().is_software ? 0u : std::size_t{64} << 20);
  EXPECT_EQ(automatic.state()->imported_buffer_bytes, expected);
}

}  // namespace
