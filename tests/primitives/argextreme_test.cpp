// gpgpu::argmin / argmax: the first extreme's index, exact, on random data with planted
// ties, infinities and NaNs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitives_test_support.hpp"

namespace gpgpu::test {
namespace {

// The first index of the smallest / largest non-NaN element in [first, first + count).
template <class T>
Extreme<T> reference(const std::vector<T>& x, std::size_t first, std::size_t count, bool max) {
  Extreme<T> e;
  for (std::size_t i = first; i < first + count; ++i) {
    if constexpr (std::is_same_v<T, float>) {
      if (std::isnan(x[i])) continue;
    }
    if (e.index == no_index || (max ? x[i] > e.value : x[i] < e.value)) {
      e.index = static_cast<std::uint32_t>(i);
      e.value = x[i];
    }
  }
  return e;
}

template <class T>
std::vector<T> values(std::size_t n) {
  if constexpr (std::is_same_v<T, float>) {
    return random_floats(n, -1000.0f, 1000.0f);
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return random_ints(n, -1000000, 1000000);  // many ties at large n
  } else {
    return random_uints(n, 1, 1000000);
  }
}

template <class T>
void check(const std::vector<T>& x, Range range = {}) {
  Context& ctx = context();
  const Buffer in = Buffer::from(ctx, x);
  const std::size_t count = range.count == whole ? x.size() - range.first : range.count;
  for (bool max : {false, true}) {
    SCOPED_TRACE(testing::Message()
                 << "n=" << x.size() << (max ? " argmax" : " argmin") << " seed=" << seed());
    const Extreme<T> want = reference(x, range.first, count, max);
    Buffer out = poisoned<std::uint32_t>(ctx, 3);
    if (max) {
      argmax(ctx, in, out, 1, range);
    } else {
      argmin(ctx, in, out, 1, range);
    }
    const auto got = out.to_vector<std::uint32_t>();
    EXPECT_EQ(got[0], poison_uint);
    EXPECT_EQ(got[1], want.index);
    EXPECT_EQ(got[2], poison_uint);
    const Extreme<T> host = max ? argmax<T>(ctx, in, range) : argmin<T>(ctx, in, range);
    EXPECT_EQ(host.index, want.index);
    if (want.index != no_index) {
      EXPECT_TRUE(same_bits(host.value, want.value));
    }
  }
}

class ArgExtremeSizes : public testing::TestWithParam<std::size_t> {};

TEST_P(ArgExtremeSizes, RandomData) {
  check(values<float>(GetParam()));
  check(values<std::int32_t>(GetParam()));
  check(values<std::uint32_t>(GetParam()));
}

TEST_P(ArgExtremeSizes, TiesPickTheFirst) {
  // The extreme value planted at several places; the first must win.
  const std::size_t n = GetParam();
  auto x = values<float>(n);
  auto u = values<std::uint32_t>(n);
  for (std::size_t k = 0; k < 4; ++k) {
    const std::size_t at = (rng()() % n);
    x[at] = 5000.0f;
    u[at] = 0xFFFFFFF0u;
    x[(at * 7) % n] = -5000.0f;
    u[(at * 7) % n] = 0;
  }
  check(x);
  check(u);
  check(std::vector<float>(n, 2.5f));  // all equal: index 0
}

INSTANTIATE_TEST_SUITE_P(EdgeSizes, ArgExtremeSizes, testing::ValuesIn(edge_sizes()));

TEST(ArgExtreme, InfinitiesAndNaNs) {
  for (std::size_t n : {1u, 7u, 300u, 100003u}) {
    auto x = values<float>(n);
    x[n / 2] = -INFINITY;
    x[n - 1] = INFINITY;
    x[0] = NAN;
    check(x);
    check(std::vector<float>(n, -INFINITY));  // the identity value itself: index 0
    check(std::vector<float>(n, INFINITY));
    check(std::vector<float>(n, NAN));  // only NaNs: no_index
    x.assign(n, NAN);
    x[n - 1] = 1.0f;
    check(x);
  }
}

TEST(ArgExtreme, RangesAndLargeSizes) {
  const auto x = values<float>(100000);
  for (Range r : {Range{1, 1}, Range{3, whole}, Range{7, 99000}, Range{99995, 5}}) check(x, r);
  check(values<float>(past_loop_cap(context())));
  check(values<std::int32_t>(largest_bindable(context())));
}

TEST(ArgExtreme, HostSpansAndEmpty) {
  Context& ctx = context();
  const auto x = values<float>(5000);
  const auto want = reference(x, 0, x.size(), true);
  const auto got = argmax<float>(ctx, x);
  EXPECT_EQ(got.index, want.index);
  EXPECT_EQ(got.value, want.value);
  const std::vector<std::int32_t> none;
  EXPECT_EQ(argmin<std::int32_t>(ctx, none).index, no_index);
}

TEST(ArgExtreme, Errors) {
  Context& ctx = context();
  const Buffer x = Buffer::from(ctx, values<float>(10));
  Buffer floats = poisoned<float>(ctx, 2);
  Buffer out = poisoned<std::uint32_t>(ctx, 2);
  EXPECT_THROW(argmax(ctx, x, floats), TypeMismatchError);
  EXPECT_THROW(argmax(ctx, x, out, 2), SizeMismatchError);
  EXPECT_THROW(argmax(ctx, x, out, 0, Range{5, 6}), SizeMismatchError);
  EXPECT_THROW((void)argmax<std::int32_t>(ctx, x), TypeMismatchError);
  EXPECT_EQ(out.to_vector<std::uint32_t>(), std::vector<std::uint32_t>(2, poison_uint));
}

}  // namespace
}  // namespace gpgpu::test
