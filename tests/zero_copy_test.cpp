// HostBuffers as compute-kernel arguments (zero-copy: the kernel reads and writes the pinned
// host memory itself), a pipeline of run_async calls over HostBuffers with random chunk sizes
// (no chunk is read before it is written, none is overwritten before its result is taken),
// and engine transfers of odd-sized host ranges at unaligned addresses. Every element of
// every output is checked against exact host references (integers and halves: the float
// arithmetic is exact); outputs are poisoned before each run.
#include <gtest/gtest.h>

#include <deque>
#include <random>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/host_buffer.hpp"
#include "test_support.hpp"

namespace gpgpu::test {
namespace {

constexpr const char* saxpy = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
uniform float alpha;
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] += alpha * x[i]; })";

constexpr const char* twice = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] = 2.0 * x[i] + 1.0; })";

// Small integers and halves: y + 2x and 2x + 1 are exact in float32.
float value(std::mt19937& rng) {
  return static_cast<float>(static_cast<int>(rng() % 2001) - 1000) * 0.5f;
}

TEST(ZeroCopy, KernelReadsAndWritesHostBuffers) {
  Context ctx;
  ComputeKernel k(ctx, saxpy);
  std::mt19937 rng(seed());
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{1023}, std::size_t{100003}}) {
    SCOPED_TRACE(testing::Message() << "n=" << n << " seed=" << seed());
    HostBuffer x(ctx, ElementType::Float32, n, HostAccess::Write);
    HostBuffer y(ctx, ElementType::Float32, n, HostAccess::ReadWrite);
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) {
      x.span<float>()[i] = value(rng);
      y.span<float>()[i] = value(rng);
      want[i] = y.span<float>()[i] + 2.0f * x.span<float>()[i];
    }
    const HostBuffer& input = x;
    k.run({{"x", input}, {"y", y}, {"alpha", 2.0f}});
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y.span<float>()[i], want[i]) << i;
  }
}

TEST(ZeroCopy, OutputOnlyHostBufferAndAsync) {
  Context ctx;
  ComputeKernel k(ctx, twice);
  std::mt19937 rng(seed());
  const std::size_t n = 65537;
  HostBuffer x(ctx, ElementType::Float32, n, HostAccess::Write);
  HostBuffer y(ctx, ElementType::Float32, n, HostAccess::Read);
  for (auto& v : x.span<float>()) v = value(rng);
  for (auto& v : y.span<float>()) v = poison_float();
  k.run_async({{"x", std::as_const(x)}, {"y", y}}).wait();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(y.span<float>()[i], 2.0f * x.span<float>()[i] + 1.0f) << i;
  }
}

// Chunks of random sizes through a ring of 3 input and 3 output HostBuffers, 3 runs in
// flight: a slot is refilled only after the run that read it was waited for.
TEST(ZeroCopy, PipelineWithRandomChunks) {
  Context ctx;
  ComputeKernel k(ctx, twice);
  std::mt19937 rng(seed());
  const std::size_t total = 1'000'003, largest = 70'001;
  std::vector<float> in(total), out(total, poison_float());
  for (auto& v : in) v = value(rng);
  std::vector<HostBuffer> xs, ys;
  for (int s = 0; s < 3; ++s) {
    xs.emplace_back(ctx, ElementType::Float32, largest, HostAccess::Write);
    ys.emplace_back(ctx, ElementType::Float32, largest, HostAccess::Read);
  }
  struct Flight {
    PendingRun run;
    std::size_t slot, first, count;
  };
  std::deque<Flight> flight;
  const auto retire = [&] {
    Flight& f = flight.front();
    f.run.wait();
    const auto y = ys[f.slot].span<float>();
    std::copy(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(f.count),
              out.begin() + static_cast<std::ptrdiff_t>(f.first));
    flight.pop_front();
  };
  std::size_t first = 0, chunk = 0;
  while (first < total) {
    const std::size_t count = std::min<std::size_t>(1 + rng() % largest, total - first);
    const std::size_t slot = chunk++ % 3;
    if (flight.size() == 3) retire();
    auto x = xs[slot].span<float>();
    std::copy(in.begin() + static_cast<std::ptrdiff_t>(first),
              in.begin() + static_cast<std::ptrdiff_t>(first + count), x.begin());
    for (auto& v : ys[slot].span<float>()) v = poison_float();
    flight.push_back({k.run_async({{"x", std::as_const(xs[slot])}, {"y", ys[slot]}}, count), slot,
                      first, count});
    first += count;
  }
  while (!flight.empty()) retire();
  for (std::size_t i = 0; i < total; ++i) ASSERT_EQ(out[i], 2.0f * in[i] + 1.0f) << i;
}

TEST(ZeroCopy, BadHostBufferArguments) {
  Context ctx, other;
  ComputeKernel k(ctx, saxpy);
  HostBuffer x(ctx, ElementType::Float32, 16), foreign(other, ElementType::Float32, 16);
  HostBuffer ints(ctx, ElementType::Int32, 16);
  std::vector<float> y(16, 1.0f);
  EXPECT_THROW(k.run({{"x", std::as_const(ints)}, {"y", y}, {"alpha", 1.0f}}), TypeMismatchError);
  if (x.is_mapped()) {
    EXPECT_THROW(k.run({{"x", std::as_const(foreign)}, {"y", y}, {"alpha", 1.0f}}), ArgumentError);
    EXPECT_THROW(k.run({{"x", std::as_const(x)}, {"y", y}, {"alpha", std::as_const(x)}}),
                 TypeMismatchError);
  } else {
    // Without GL_EXT_buffer_storage a HostBuffer is ordinary host memory (host_buffer.hpp):
    // another Context's binds like any array, and as a scalar it is 16 values too many.
    EXPECT_THROW(k.run({{"x", std::as_const(x)}, {"y", y}, {"alpha", std::as_const(x)}}),
                 SizeMismatchError);
  }
  EXPECT_EQ(y, std::vector<float>(16, 1.0f));  // nothing ran
}

// Engine transfers of host ranges that start off any 16-byte boundary (1 and 3 elements into
// a vector) and have odd sizes, across the direct and the staged (chunked) sizes, into and out
// of the middle of a Buffer; the elements around each range stay as they were.
TEST(ZeroCopy, UnalignedOddHostRanges) {
  Context ctx;
  std::mt19937 rng(seed());
  for (std::size_t n :
       {std::size_t{1}, std::size_t{3}, std::size_t{65537}, std::size_t{3'000'017}}) {
    for (std::size_t shift : {std::size_t{1}, std::size_t{3}}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " shift=" << shift << " seed=" << seed());
      std::vector<std::uint32_t> src(n + 4);
      for (auto& v : src) v = static_cast<std::uint32_t>(rng());
      Buffer b = Buffer::from(ctx, std::vector<std::uint32_t>(n + 2, 7u));
      b.upload(std::span<const std::uint32_t>(src.data() + shift, n), 1);
      std::vector<std::uint32_t> back(n + 4, 0xABABABABu);
      b.download(std::span<std::uint32_t>(back.data() + (4 - shift), n), 1);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(back[4 - shift + i], src[shift + i]) << i;
      EXPECT_EQ(back[3 - shift], 0xABABABABu);
      if (4 - shift + n < back.size()) {
        EXPECT_EQ(back[4 - shift + n], 0xABABABABu);
      }
      const auto whole = b.to_vector<std::uint32_t>();
      EXPECT_EQ(whole.front(), 7u);
      EXPECT_EQ(whole.back(), 7u);
    }
  }
}

}  // namespace
}  // namespace gpgpu::test
