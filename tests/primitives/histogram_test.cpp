// gpgpu::histogram / histogram_int against a CPU reference that applies the documented
// float32 bin formula: every count (bins, below, above, NaN) exact.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitives_test_support.hpp"

namespace gpgpu::test {
namespace {

std::vector<std::uint32_t> reference(const std::vector<float>& x, std::size_t first,
                                     std::size_t count, std::uint32_t bins, float lo, float hi) {
  std::vector<std::uint32_t> c(bins + 3, 0);
  const float scale = static_cast<float>(bins) / (hi - lo);
  for (std::size_t i = first; i < first + count; ++i) {
    const float v = x[i];
    if (std::isnan(v)) {
      ++c[bins + 2];
    } else if (v < lo) {
      ++c[bins];
    } else if (v > hi) {
      ++c[bins + 1];
    } else {
      const volatile float t = (v - lo) * scale;  // float32, as the kernel computes it
      ++c[std::min(static_cast<std::uint32_t>(t), bins - 1)];
    }
  }
  return c;
}

template <class T>
std::vector<std::uint32_t> reference_int(const std::vector<T>& x, std::uint32_t bins,
                                         std::int64_t lo) {
  std::vector<std::uint32_t> c(bins + 3, 0);
  for (T v : x) {
    const std::int64_t d = static_cast<std::int64_t>(v) - lo;
    if (d < 0) {
      ++c[bins];
    } else if (d >= bins) {
      ++c[bins + 1];
    } else {
      ++c[static_cast<std::size_t>(d)];
    }
  }
  return c;
}

// Floats over [lo - 10%, hi + 10%], with infinities, NaNs and exact edges planted.
std::vector<float> values(std::size_t n, float lo, float hi) {
  const float margin = (hi - lo) * 0.1f;
  auto x = random_floats(n, lo - margin, hi + margin);
  for (std::size_t k = 0; k < n / 50; ++k) {
    const std::size_t i = rng()() % n;
    const float specials[] = {NAN, INFINITY, -INFINITY, lo, hi, std::nextafter(hi, 0.0f), -0.0f};
    x[i] = specials[rng()() % std::size(specials)];
  }
  return x;
}

void expect_counts(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& want,
                   std::size_t offset) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (got[offset + i] != want[i] && ++bad <= 5) {
      ADD_FAILURE() << "slot " << i << " of " << want.size() << ": " << got[offset + i] << " vs "
                    << want[i];
    }
  }
  EXPECT_EQ(bad, 0u);
}

void check_float(std::size_t n, std::uint32_t bins, float lo, float hi, Range range = {}) {
  Context& ctx = context();
  SCOPED_TRACE(testing::Message() << "n=" << n << " bins=" << bins << " [" << lo << ", " << hi
                                  << "] seed=" << seed());
  const auto x = values(n, lo, hi);
  const Buffer in = Buffer::from(ctx, x);
  const std::size_t count = range.count == whole ? n - range.first : range.count;
  Buffer counts = poisoned<std::uint32_t>(ctx, bins + 5);
  HistogramOptions o;
  o.range = range;
  o.out_offset = 1;
  histogram(ctx, in, counts, bins, lo, hi, o);
  auto got = counts.to_vector<std::uint32_t>();
  EXPECT_EQ(got[0], poison_uint);
  EXPECT_EQ(got[bins + 4], poison_uint);
  auto want = reference(x, range.first, count, bins, lo, hi);
  expect_counts(got, want, 1);
  // Accumulating a second time doubles every count.
  o.accumulate = true;
  histogram(ctx, in, counts, bins, lo, hi, o);
  got = counts.to_vector<std::uint32_t>();
  for (auto& w : want) w *= 2;
  expect_counts(got, want, 1);
}

class HistogramSizes : public testing::TestWithParam<std::size_t> {};

TEST_P(HistogramSizes, Floats) {
  check_float(GetParam(), 256, 0.0f, 1.0f);
  check_float(GetParam(), 7, -3.5f, 100.25f);
}

TEST_P(HistogramSizes, Integers) {
  Context& ctx = context();
  const std::size_t n = GetParam();
  const auto i = random_ints(n, -300, 300);
  const auto hi = histogram_int(ctx, std::span<const std::int32_t>(i), 500, -250);
  const auto wi = reference_int(i, 500, -250);
  EXPECT_EQ(hi.bins, std::vector<std::uint32_t>(wi.begin(), wi.begin() + 500));
  EXPECT_EQ(hi.below, wi[500]);
  EXPECT_EQ(hi.above, wi[501]);
  EXPECT_EQ(hi.nan, 0u);
  const auto u = random_uints(n, 1, 2000);
  const auto hu = histogram_int(ctx, std::span<const std::uint32_t>(u), 1024, 700);
  const auto wu = reference_int(u, 1024, 700);
  EXPECT_EQ(hu.bins, std::vector<std::uint32_t>(wu.begin(), wu.begin() + 1024));
  EXPECT_EQ(hu.below, wu[1024]);
  EXPECT_EQ(hu.above, wu[1025]);
}

INSTANTIATE_TEST_SUITE_P(EdgeSizes, HistogramSizes, testing::ValuesIn(edge_sizes()));

TEST(Histogram, ManyBinsAndRanges) {
  for (std::uint32_t bins : {1u, 2u, 1000u, 5000u, 100000u}) check_float(200003, bins, -1.0f, 1.0f);
  for (Range r : {Range{1, 1}, Range{3, whole}, Range{7, 90000}})
    check_float(100000, 64, 0.0f, 10.0f, r);
}

TEST(Histogram, PastTheLoopCapAndLargestBindable) {
  check_float(past_loop_cap(context()), 256, 0.0f, 1.0f);
  check_float(largest_bindable(context()), 100, -5.0f, 5.0f);
}

TEST(Histogram, ExtremeIntegerRanges) {
  Context& ctx = context();
  std::vector<std::int32_t> i = {std::numeric_limits<std::int32_t>::min(), -1, 0, 1,
                                 std::numeric_limits<std::int32_t>::max()};
  auto h = histogram_int(ctx, std::span<const std::int32_t>(i), 3,
                         std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(h.bins, (std::vector<std::uint32_t>{1, 0, 0}));
  EXPECT_EQ(h.above, 4u);
  h = histogram_int(ctx, std::span<const std::int32_t>(i), 2,
                    std::numeric_limits<std::int32_t>::max() - 1);
  EXPECT_EQ(h.bins, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(h.below, 4u);
  std::vector<std::uint32_t> u = {0, 5, 0xFFFFFFFFu};
  const auto hu = histogram_int(ctx, std::span<const std::uint32_t>(u), 10, 0xFFFFFFF0ll);
  EXPECT_EQ(hu.below, 2u);
  EXPECT_EQ(hu.above, 1u);  // 0xFFFFFFFF is bin 15 of 10
  EXPECT_EQ(hu.bins, std::vector<std::uint32_t>(10, 0));
  EXPECT_EQ(histogram(ctx, std::span<const float>(std::vector<float>{}), 4, 0.0f, 1.0f).bins,
            std::vector<std::uint32_t>(4, 0));
}

TEST(Histogram, Errors) {
  Context& ctx = context();
  const Buffer f = Buffer::from(ctx, random_floats(100));
  const Buffer i = Buffer::from(ctx, random_ints(100, 1, 5));
  Buffer counts = poisoned<std::uint32_t>(ctx, 10);
  Buffer float_counts = poisoned<float>(ctx, 10);
  EXPECT_THROW(histogram(ctx, f, counts, 8, 0.0f, 1.0f), SizeMismatchError);  // needs 11
  EXPECT_THROW(histogram(ctx, f, float_counts, 4, 0.0f, 1.0f), TypeMismatchError);
  EXPECT_THROW(histogram(ctx, f, counts, 0, 0.0f, 1.0f), ArgumentError);
  EXPECT_THROW(histogram(ctx, f, counts, 4, 1.0f, 1.0f), ArgumentError);
  EXPECT_THROW(histogram(ctx, f, counts, 4, 0.0f, INFINITY), ArgumentError);
  EXPECT_THROW(histogram(ctx, i, counts, 4, 0.0f, 1.0f), TypeMismatchError);
  EXPECT_THROW(histogram_int(ctx, f, counts, 4, 0), TypeMismatchError);
  EXPECT_THROW(histogram_int(ctx, i, counts, 4, std::int64_t{1} << 40), ArgumentError);
  for (auto v : counts.to_vector<std::uint32_t>()) EXPECT_EQ(v, poison_uint);
}

}  // namespace
}  // namespace gpgpu::test
