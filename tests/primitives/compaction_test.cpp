// gpgpu::copy_if / partition / unique against std::copy_if / std::stable_partition /
// std::unique-like references: counts and every output element exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitives_test_support.hpp"

namespace gpgpu::test {
namespace {

void check_float_compaction(std::size_t n, Range range = {}) {
  Context& ctx = context();
  SCOPED_TRACE(testing::Message() << "n=" << n << " seed=" << seed());
  auto x = random_floats(n);
  if (n > 10) x[n / 3] = NAN;  // NaN > 0.25 is false: dropped by copy_if, kept last by partition
  const Buffer in = Buffer::from(ctx, x);
  const std::size_t first = range.first, count = range.count == whole ? n - first : range.count;
  std::vector<float> keep, drop;
  for (std::size_t i = first; i < first + count; ++i) {
    // The predicate uses the element and its index.
    ((x[i] > 0.25f || i % 7 == 0) ? keep : drop).push_back(x[i]);
  }
  const std::string predicate = "x > 0.25 || i % 7u == 0u";
  Buffer out = poisoned<float>(ctx, count + 1);
  const std::size_t kept = copy_if(ctx, in, out, predicate, {1, range});
  ASSERT_EQ(kept, keep.size());
  auto got = out.to_vector<float>();
  for (std::size_t i = 0; i < kept; ++i) ASSERT_TRUE(same_bits(got[i], keep[i])) << i;
  for (std::size_t i = kept; i < got.size(); ++i)
    ASSERT_TRUE(same_bits(got[i], poison_float())) << i;

  Buffer parted = poisoned<float>(ctx, count + 1);
  Buffer count_out = poisoned<std::uint32_t>(ctx, 3);
  partition(ctx, in, parted, predicate, count_out, 1, {1, range});
  const auto counts = count_out.to_vector<std::uint32_t>();
  EXPECT_EQ(counts[0], poison_uint);
  EXPECT_EQ(counts[1], keep.size());
  EXPECT_EQ(counts[2], poison_uint);
  got = parted.to_vector<float>();
  for (std::size_t i = 0; i < count; ++i) {
    const float want = i < keep.size() ? keep[i] : drop[i - keep.size()];
    ASSERT_TRUE(same_bits(got[i], want)) << i;
  }
  ASSERT_TRUE(same_bits(got[count], poison_float()));
}

class CompactionSizes : public testing::TestWithParam<std::size_t> {};

TEST_P(CompactionSizes, CopyIfAndPartition) {
  check_float_compaction(GetParam());
}

TEST_P(CompactionSizes, UniqueOfSortedKeys) {
  Context& ctx = context();
  const std::size_t n = GetParam();
  auto keys = random_ints(n, -50, 50);
  std::sort(keys.begin(), keys.end());
  auto want = keys;
  want.erase(std::unique(want.begin(), want.end()), want.end());
  EXPECT_EQ(unique<std::int32_t>(ctx, keys), want);
  auto u = random_uints(n, 1, 0xFFFFFFFFu);
  std::sort(u.begin(), u.end());
  auto wu = u;
  wu.erase(std::unique(wu.begin(), wu.end()), wu.end());
  EXPECT_EQ(unique<std::uint32_t>(ctx, u), wu);
}

INSTANTIATE_TEST_SUITE_P(EdgeSizes, CompactionSizes, testing::ValuesIn(edge_sizes()));

TEST(Compaction, RangesVectorsAndLarge) {
  for (Range r : {Range{1, 1}, Range{3, whole}, Range{100, 5000}}) check_float_compaction(10000, r);
  check_float_compaction(past_loop_cap(context()));
  Context& ctx = context();
  // vec2 elements: keep those whose components sum above zero.
  const auto x = random_floats(2 * 30011);
  std::vector<float> want;
  for (std::size_t i = 0; i < x.size() / 2; ++i) {
    if (x[2 * i] + x[2 * i + 1] > 0.0f) want.insert(want.end(), {x[2 * i], x[2 * i + 1]});
  }
  const auto got = copy_if<float>(ctx, x, "x.x + x.y > 0.0", 2);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(same_bits(got[i], want[i])) << i;
}

TEST(Compaction, UniqueFloatsEqualityRules) {
  Context& ctx = context();
  const std::vector<float> x = {-1.0f, -0.0f, 0.0f, 0.0f, 1.0f, NAN, NAN, INFINITY, INFINITY};
  const auto got = unique<float>(ctx, x);
  // -0.0 == +0.0 (one kept, the first); NaN equals nothing (both kept).
  ASSERT_EQ(got.size(), 6u);
  EXPECT_TRUE(same_bits(got[1], -0.0f));
  EXPECT_TRUE(std::isnan(got[3]) && std::isnan(got[4]));
  EXPECT_EQ(got[5], INFINITY);
  const auto all_equal = std::vector<std::uint32_t>(100000, 7u);
  EXPECT_EQ(unique<std::uint32_t>(ctx, all_equal), std::vector<std::uint32_t>{7u});
  EXPECT_TRUE(copy_if<float>(ctx, random_floats(1000, 1.0f, 2.0f), "x < 0.0").empty());
}

TEST(Compaction, Errors) {
  Context& ctx = context();
  const Buffer f = Buffer::from(ctx, random_floats(100));
  Buffer small = poisoned<float>(ctx, 99);
  Buffer out = poisoned<float>(ctx, 100);
  Buffer ints = poisoned<std::int32_t>(ctx, 100);
  EXPECT_THROW((void)copy_if(ctx, f, small, "x > 0.0"), SizeMismatchError);
  EXPECT_THROW((void)copy_if(ctx, f, ints, "x > 0.0"), TypeMismatchError);
  EXPECT_THROW((void)copy_if(ctx, f, out, "x >>> 0.0"), CompileError);
  EXPECT_THROW((void)copy_if(ctx, f, out, "  "), ArgumentError);
  EXPECT_THROW((void)partition(ctx, f, out, "x > 0.0", {3, {}}), SizeMismatchError);
  for (float v : out.to_vector<float>()) ASSERT_TRUE(std::isnan(v));
}

}  // namespace
}  // namespace gpgpu::test
