// The kernel family this device does not use by default (GPU-style kernels on llvmpipe,
// CPU-style ones — buffer-texture loads, serial runs — on GPUs), and a few other shapes,
// checked on moderate sizes against CPU references. Every primitive must be right with
// every tuning.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitives_test_support.hpp"

namespace gpgpu::test {
namespace {

// A Context with the other kernel family.
Context& other_context() {
  static Context* ctx = [] {
    auto* c = new Context();
    PrimitiveTuning t;
    const bool cpu_style = primitive_tuning(*c).texel_loads == 1;
    t.texel_loads = cpu_style ? 0 : 1;
    t.sort_serial = cpu_style ? 0 : 1;
    set_primitive_tuning(*c, t);
    return c;
  }();
  return *ctx;
}

const std::size_t sizes[] = {1, 3, 255, 257, 4099, 65537, 300007};

TEST(Variants, ReduceAndArgmax) {
  Context& ctx = other_context();
  for (std::size_t n : sizes) {
    SCOPED_TRACE(testing::Message() << "n=" << n << " seed=" << seed());
    const auto x = random_floats(n);
    const Buffer b = Buffer::from(ctx, x);
    expect_sum_and_max(ctx, b, x);
    const auto am = argmax<float>(ctx, b);
    EXPECT_EQ(am.index,
              static_cast<std::uint32_t>(std::max_element(x.begin(), x.end()) - x.begin()));
    const auto u = random_uints(3 * n, 1, 1000);
    const auto sums = reduce_vector<std::uint32_t>(ctx, Buffer::from(ctx, u), 3);
    for (int k = 0; k < 3; ++k) {
      std::uint32_t s = 0;
      for (std::size_t i = 0; i < n; ++i) s += u[3 * i + k];
      EXPECT_EQ(sums[k], s);
    }
  }
}

TEST(Variants, Scan) {
  Context& ctx = other_context();
  for (std::size_t n : sizes) {
    for (ScanAlgorithm a : {ScanAlgorithm::SinglePass, ScanAlgorithm::ReduceThenScan}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " seed=" << seed());
      const auto x = random_ints(2 * n, -1000, 1000);
      const Buffer in = Buffer::from(ctx, x);
      Buffer out(ctx, ElementType::Int32, 2 * n);
      exclusive_scan(ctx, in, out, Op::Sum, {2, {}, 0, a});
      const auto got = out.to_vector<std::int32_t>();
      std::int32_t s0 = 0, s1 = 0;
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[2 * i], s0) << i;
        ASSERT_EQ(got[2 * i + 1], s1) << i;
        s0 += x[2 * i];
        s1 += x[2 * i + 1];
      }
      Buffer single(ctx, ElementType::Int32, 2 * n);
      inclusive_scan(ctx, in, single, Op::Max, {1, {1, whole}, 0, a});
      const auto m = single.to_vector<std::int32_t>();
      std::int32_t run = std::numeric_limits<std::int32_t>::min();
      for (std::size_t i = 1; i < 2 * n; ++i) {
        run = std::max(run, x[i]);
        ASSERT_EQ(m[i - 1], run) << i;
      }
    }
  }
}

TEST(Variants, SortAndArgsort) {
  Context& ctx = other_context();
  for (std::size_t n : sizes) {
    SCOPED_TRACE(testing::Message() << "n=" << n << " seed=" << seed());
    auto keys = random_floats(n, -100.0f, 100.0f);
    for (std::size_t i = 0; i < n; i += 7) keys[i] = std::round(keys[i]);  // ties
    std::vector<std::uint32_t> want(n);
    std::iota(want.begin(), want.end(), 0u);
    std::stable_sort(want.begin(), want.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return keys[a] > keys[b]; });
    EXPECT_EQ(argsort<float>(ctx, keys, SortOrder::Descending), want);
    auto u = random_uints(n, 1, 0xFFFFFFFFu);
    auto sorted = u;
    std::sort(sorted.begin(), sorted.end());
    sort<std::uint32_t>(ctx, u);
    EXPECT_EQ(u, sorted);
  }
}

TEST(Variants, HistogramCompactionSegments) {
  Context& ctx = other_context();
  for (std::size_t n : sizes) {
    SCOPED_TRACE(testing::Message() << "n=" << n << " seed=" << seed());
    const auto x = random_ints(n, -20, 300);
    const auto h = histogram_int(ctx, std::span<const std::int32_t>(x), 256, 0);
    std::vector<std::uint32_t> want(256, 0);
    std::uint32_t below = 0, above = 0;
    for (auto v : x) v < 0 ? ++below : v >= 256 ? ++above : ++want[static_cast<std::size_t>(v)];
    EXPECT_EQ(h.bins, want);
    EXPECT_EQ(h.below, below);
    EXPECT_EQ(h.above, above);
    std::vector<std::int32_t> kept;
    // (GLSL's % is undefined for negative operands; & is two's complement.)
    std::copy_if(x.begin(), x.end(), std::back_inserter(kept),
                 [](std::int32_t v) { return (v & 3) == 1; });
    EXPECT_EQ(copy_if<std::int32_t>(ctx, x, "(x & 3) == 1"), kept);
    std::vector<std::uint32_t> offsets = {0, static_cast<std::uint32_t>(n / 3),
                                          static_cast<std::uint32_t>(n)};
    const auto seg = segmented_reduce<std::int32_t>(ctx, x, offsets);
    EXPECT_EQ(seg[0], std::accumulate(x.begin(), x.begin() + n / 3, 0));
    EXPECT_EQ(seg[1], std::accumulate(x.begin() + n / 3, x.end(), 0));
  }
}

TEST(Variants, OtherShapes) {
  Context ctx;
  for (int local : {32, 128, 512}) {
    PrimitiveTuning t;
    t.reduce_local = local;
    t.reduce_unroll = local == 128 ? 8 : 1;
    t.reduce_max_trips = local == 32 ? 3 : 64;
    t.scan_local = local;
    t.scan_scalars = local == 512 ? 8 : 32;
    if (local * t.scan_scalars * 4 * 33 / 32 + 16 * local + 1024 >
        ctx.info().max_compute_shared_memory_size) {
      t.scan_scalars = 4;
    }
    if (local > ctx.info().max_compute_work_group_invocations) {
      // A shape the device cannot run (under a device-limit profile): refused, named.
      EXPECT_THROW(set_primitive_tuning(ctx, t), ArgumentError) << local;
      continue;
    }
    set_primitive_tuning(ctx, t);
    const auto x = random_uints(200003, 1, 100);
    const Buffer in = Buffer::from(ctx, x);
    EXPECT_EQ(reduce<std::uint32_t>(ctx, in), std::accumulate(x.begin(), x.end(), 0u)) << local;
    const auto inc = inclusive_scan<std::uint32_t>(ctx, x);
    std::uint32_t s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(inc[i], s += x[i]) << local << " " << i;
  }
  PrimitiveTuning bad;
  bad.reduce_unroll = 3;
  EXPECT_THROW(set_primitive_tuning(ctx, bad), ArgumentError);
  bad = {};
  bad.scan_local = 1024;
  bad.scan_scalars = 32;
  EXPECT_THROW(set_primitive_tuning(ctx, bad), ArgumentError);  // shared memory
}

}  // namespace
}  // namespace gpgpu::test
