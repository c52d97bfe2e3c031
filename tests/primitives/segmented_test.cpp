// gpgpu::segmented_reduce: every segment's result against a CPU reference (float sums
// against float64 within (m - 1) * u * sum|x|; everything else exact), for short, long,
// empty and uneven segments.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitives_test_support.hpp"

namespace gpgpu::test {
namespace {

// Offsets for n elements with segment lengths drawn up to max_len (some empty).
std::vector<std::uint32_t> random_offsets(std::size_t n, std::size_t max_len) {
  EXPECT_GE(max_len, 1u);
  max_len = std::max<std::size_t>(max_len, 1);
  std::vector<std::uint32_t> o = {0};
  while (o.back() < n) {
    const std::size_t len = rng()() % (max_len + 1);
    o.push_back(static_cast<std::uint32_t>(std::min(n, o.back() + len)));
  }
  o.push_back(static_cast<std::uint32_t>(n));  // one trailing empty segment
  return o;
}

void check_float(std::size_t n, std::size_t max_len, int components = 1) {
  Context& ctx = context();
  SCOPED_TRACE(testing::Message() << "n=" << n << " max_len=" << max_len << " c=" << components
                                  << " seed=" << seed());
  const auto c = static_cast<std::size_t>(components);
  const auto x = random_floats(n * c);
  const auto offsets = random_offsets(n, max_len);
  const auto got = segmented_reduce<float>(ctx, x, offsets, Op::Sum, components);
  const auto maxes = segmented_reduce<float>(ctx, x, offsets, Op::Max, components);
  ASSERT_EQ(got.size(), (offsets.size() - 1) * c);
  std::size_t bad = 0;
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    for (std::size_t k = 0; k < c; ++k) {
      double exact = 0, magnitude = 0;
      float max = -INFINITY;
      for (std::size_t i = offsets[s]; i < offsets[s + 1]; ++i) {
        exact += x[i * c + k];
        magnitude += std::fabs(x[i * c + k]);
        max = std::max(max, x[i * c + k]);
      }
      const double m = offsets[s + 1] - offsets[s];
      const bool ok =
          std::fabs(got[s * c + k] - exact) <= std::max(0.0, m - 1) * eps32 * magnitude &&
          same_bits(maxes[s * c + k], max);
      if (!ok && ++bad <= 5)
        ADD_FAILURE() << "segment " << s << " component " << k << ": " << got[s * c + k] << " vs "
                      << exact;
    }
  }
  EXPECT_EQ(bad, 0u);
}

TEST(SegmentedReduce, ShortAndLongSegments) {
  for (std::size_t max_len : {1u, 3u, 10u, 100u, 5000u}) check_float(100003, max_len);
  check_float(1, 1);
  check_float(2, 1);
  check_float(257, 300);
}

TEST(SegmentedReduce, OneHugeSegmentAndLargest) {
  check_float(past_loop_cap(context()), past_loop_cap(context()));
  check_float(largest_bindable(context()), 100000000);
}

TEST(SegmentedReduce, VectorsAndIntegers) {
  Context& ctx = context();
  for (int c : {2, 3, 4}) check_float(30011, 40, c);
  const auto x = random_ints(200003, -1000000, 1000000);
  const auto offsets = random_offsets(x.size(), 77);
  const auto sums = segmented_reduce<std::int32_t>(ctx, x, offsets);
  const auto mins = segmented_reduce<std::int32_t>(ctx, x, offsets, Op::Min);
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    std::int32_t sum = 0, min = std::numeric_limits<std::int32_t>::max();
    for (std::size_t i = offsets[s]; i < offsets[s + 1]; ++i)
      sum += x[i], min = std::min(min, x[i]);
    ASSERT_EQ(sums[s], sum) << s;
    ASSERT_EQ(mins[s], min) << s;
  }
}

// A non-commutative operator (2x2 matrix products modulo 2^32) keeps operand order within
// every segment, whatever the number of lanes.
TEST(SegmentedReduce, GlslOperatorKeepsOperandOrder) {
  Context& ctx = context();
  const GlslOp matmul2{
      "uvec4(a.x * b.x + a.y * b.z, a.x * b.y + a.y * b.w, a.z * b.x + a.w * b.z, "
      "a.z * b.y + a.w * b.w)",
      "uvec4(1u, 0u, 0u, 1u)"};
  for (std::size_t max_len : {2u, 50u, 3000u}) {
    const std::size_t n = 50021;
    auto x = random_uints(4 * n, 1, 0xFFFFFFFFu);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t* m = &x[4 * i];
      if (((m[0] * m[3] - m[1] * m[2]) & 1u) == 0) m[0] = 1, m[1] = 2, m[2] = 4, m[3] = 9;
    }
    const auto offsets = random_offsets(n, max_len);
    const auto got = segmented_reduce<std::uint32_t>(ctx, x, offsets, matmul2, 4);
    for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
      std::array<std::uint32_t, 4> a = {1, 0, 0, 1};
      for (std::size_t i = offsets[s]; i < offsets[s + 1]; ++i) {
        const std::uint32_t* b = &x[4 * i];
        a = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
             a[2] * b[1] + a[3] * b[3]};
      }
      for (int k = 0; k < 4; ++k)
        ASSERT_EQ(got[4 * s + k], a[k]) << "segment " << s << " max_len " << max_len;
    }
  }
}

TEST(SegmentedReduce, OffsetsPastTheEndAreClamped) {
  Context& ctx = context();
  const std::vector<float> x = {1, 2, 3, 4};
  const std::vector<std::uint32_t> offsets = {0, 2, 100, 1, 4};
  const auto got = segmented_reduce<float>(ctx, x, offsets);
  // [0, 2); [2, 100) clamped to [2, 4); [100, 1) -> [4, 4) empty; [1, 4).
  EXPECT_EQ(got, (std::vector<float>{3, 7, 0, 9}));
}

TEST(SegmentedReduce, Errors) {
  Context& ctx = context();
  const Buffer x = Buffer::from(ctx, random_floats(10));
  const Buffer one = Buffer::from(ctx, std::vector<std::uint32_t>{0});
  const Buffer offsets = Buffer::from(ctx, std::vector<std::uint32_t>{0, 5, 10});
  const Buffer float_offsets = Buffer::from(ctx, std::vector<float>{0, 5, 10});
  Buffer out = poisoned<float>(ctx, 1);
  Buffer out2 = poisoned<float>(ctx, 2);
  EXPECT_THROW(segmented_reduce(ctx, x, one, out2), SizeMismatchError);
  EXPECT_THROW(segmented_reduce(ctx, x, float_offsets, out2), TypeMismatchError);
  EXPECT_THROW(segmented_reduce(ctx, x, offsets, out), SizeMismatchError);
  EXPECT_THROW(segmented_reduce(ctx, x, offsets, out2, Op::Sum, 3), SizeMismatchError);
  EXPECT_TRUE(std::isnan(out2.to_vector<float>()[0]));
}

}  // namespace
}  // namespace gpgpu::test
