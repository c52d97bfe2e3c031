// gpgpu::sort / sort_by_key / argsort against std::stable_sort with the documented key
// order: every output element checked bitwise (a stable sort's output is unique, even for
// -0.0 vs +0.0 and NaN payloads, which compare equal).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitives_test_support.hpp"

namespace gpgpu::test {
namespace {

// The documented order: NaNs after everything (equal among themselves), -0.0 == +0.0.
template <class T>
bool less(T a, T b, SortOrder order) {
  if constexpr (std::is_same_v<T, float>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return order == SortOrder::Ascending ? a < b : b < a;
}

template <class T>
bool equivalent(T a, T b) {
  return !less(a, b, SortOrder::Ascending) && !less(b, a, SortOrder::Ascending);
}

// Checks, in O(n) and exactly, that `perm` is the stable sorting permutation of keys[first,
// first + count): a permutation of those indices, keys in order along it, and indices
// increasing across equal keys. (The stable order is unique, so this is the reference.)
template <class T>
::testing::AssertionResult is_stable_sort(const std::vector<T>& keys, std::size_t first,
                                          std::size_t count, const std::vector<std::uint32_t>& perm,
                                          SortOrder order) {
  std::vector<bool> seen(count, false);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t p = perm[i];
    if (p < first || p >= first + count || seen[p - first]) {
      return ::testing::AssertionFailure()
             << "position " << i << " holds index " << p << ", not a fresh one";
    }
    seen[p - first] = true;
    if (i == 0) continue;
    const T a = keys[perm[i - 1]], b = keys[p];
    if (less(b, a, order)) return ::testing::AssertionFailure() << "keys out of order at " << i;
    if (equivalent(a, b) && perm[i - 1] > p)
      return ::testing::AssertionFailure() << "not stable at " << i;
  }
  return ::testing::AssertionSuccess();
}

// A small-size cross-check of the checker itself: std::stable_sort's permutation.
template <class T>
std::vector<std::uint32_t> reference_permutation(const std::vector<T>& keys, std::size_t first,
                                                 std::size_t count, SortOrder order) {
  std::vector<std::uint32_t> p(count);
  std::iota(p.begin(), p.end(), static_cast<std::uint32_t>(first));
  std::stable_sort(p.begin(), p.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return less(keys[a], keys[b], order); });
  return p;
}

enum class Shape { Random, FewDistinct, AllEqual, Sorted, Reversed, Special };

const char* name(Shape s) {
  switch (s) {
    case Shape::Random:
      return "random";
    case Shape::FewDistinct:
      return "few-distinct";
    case Shape::AllEqual:
      return "all-equal";
    case Shape::Sorted:
      return "sorted";
    case Shape::Reversed:
      return "reversed";
    case Shape::Special:
      return "special";
  }
  return "?";
}

template <class T>
std::vector<T> make_keys(std::size_t n, Shape shape) {
  std::vector<T> k;
  if constexpr (std::is_same_v<T, float>) {
    k = random_floats(n, -1e6f, 1e6f);
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    k = random_ints(n, std::numeric_limits<std::int32_t>::min(),
                    std::numeric_limits<std::int32_t>::max());
  } else {
    k = random_uints(n, 1, 0xFFFFFFFFu);
  }
  switch (shape) {
    case Shape::Random:
      break;
    case Shape::FewDistinct:
      for (auto& v : k) v = static_cast<T>(static_cast<int>(rng()() % 7) - 3);
      break;
    case Shape::AllEqual:
      std::fill(k.begin(), k.end(), T(5));
      break;
    case Shape::Sorted:
      std::sort(k.begin(), k.end());
      break;
    case Shape::Reversed:
      std::sort(k.rbegin(), k.rend());
      break;
    case Shape::Special:
      if constexpr (std::is_same_v<T, float>) {
        const float specials[] = {-0.0f,
                                  0.0f,
                                  INFINITY,
                                  -INFINITY,
                                  NAN,
                                  -NAN,
                                  std::bit_cast<float>(0x7FC01234u),
                                  std::numeric_limits<float>::denorm_min(),
                                  -std::numeric_limits<float>::denorm_min(),
                                  1.0f,
                                  -1.0f};
        for (auto& v : k) {
          if (rng()() % 3 == 0) v = specials[rng()() % std::size(specials)];
        }
      } else {
        const T specials[] = {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(0),
                              T(1)};
        for (auto& v : k) {
          if (rng()() % 3 == 0) v = specials[rng()() % std::size(specials)];
        }
      }
      break;
  }
  return k;
}

// Sorts keys through all three entry points and checks every output element: argsort's
// permutation is verified as the stable sort (O(n), no CPU sort needed, so the largest
// Buffers stay fast), and the sorted keys and moved values must then be keys[perm],
// bit for bit (the sign of zero and NaN payloads included).
template <class T>
void check_sort(std::size_t n, Shape shape, SortOrder order, Range range = {},
                Context& ctx = context()) {
  SCOPED_TRACE(testing::Message() << "n=" << n << " " << name(shape)
                                  << (order == SortOrder::Ascending ? " ascending" : " descending")
                                  << " key=" << to_string(element_type_of<T>())
                                  << " seed=" << seed());
  const auto keys = make_keys<T>(n, shape);
  const std::size_t count = range.count == whole ? n - range.first : range.count;

  // argsort into a poisoned Buffer with one spare element (where the device binds it).
  const std::size_t spare = count < largest_bindable(ctx) ? 1 : 0;
  Buffer indices = poisoned<std::uint32_t>(ctx, count + spare);
  {
    Buffer original = Buffer::from(ctx, keys);
    argsort(ctx, original, indices, order, range);
    const auto unchanged = original.to_vector<T>();
    std::size_t changed = 0;
    for (std::size_t i = 0; i < n; ++i) changed += !same_bits(unchanged[i], keys[i]);
    EXPECT_EQ(changed, 0u) << "argsort changed its keys";
  }
  auto perm = indices.to_vector<std::uint32_t>();
  if (spare) {
    EXPECT_EQ(perm[count], poison_uint);
  }
  perm.resize(count);
  ASSERT_TRUE(is_stable_sort(keys, range.first, count, perm, order));
  if (count <= 100000) {
    ASSERT_EQ(perm, reference_permutation(keys, range.first, count, order));
  }

  std::size_t bad = 0;
  // Keys only, in place: the range sorted, the rest untouched.
  Buffer k = Buffer::from(ctx, keys);
  sort(ctx, k, order, range);
  auto got = k.to_vector<T>();
  for (std::size_t i = 0; i < n; ++i) {
    const bool inside = i >= range.first && i < range.first + count;
    const T want = inside ? keys[perm[i - range.first]] : keys[i];
    if (!same_bits(got[i], want) && ++bad <= 5) {
      ADD_FAILURE() << "sort: keys[" << i << "] = " << got[i] << ", want " << want;
    }
  }
  got.clear();
  // With values: a payload naming each key's original position must follow it exactly.
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>(i) * 2654435761u;
  Buffer k2 = Buffer::from(ctx, keys);
  Buffer v2 = Buffer::from(ctx, values);
  sort_by_key(ctx, k2, v2, order, range);
  got = k2.to_vector<T>();
  const auto got_values = v2.to_vector<std::uint32_t>();
  for (std::size_t i = 0; i < n; ++i) {
    const bool inside = i >= range.first && i < range.first + count;
    const std::size_t from = inside ? perm[i - range.first] : i;
    if ((!same_bits(got[i], keys[from]) || got_values[i] != values[from]) && ++bad <= 5) {
      ADD_FAILURE() << "sort_by_key: element " << i << " should come from " << from;
    }
  }
  EXPECT_EQ(bad, 0u);
}

class SortSizes : public testing::TestWithParam<std::size_t> {};

TEST_P(SortSizes, Uint32) {
  for (SortOrder o : {SortOrder::Ascending, SortOrder::Descending})
    check_sort<std::uint32_t>(GetParam(), Shape::Random, o);
}
TEST_P(SortSizes, Int32) {
  check_sort<std::int32_t>(GetParam(), Shape::Random, SortOrder::Ascending);
  check_sort<std::int32_t>(GetParam(), Shape::FewDistinct, SortOrder::Descending);
}
TEST_P(SortSizes, Float32) {
  check_sort<float>(GetParam(), Shape::Special, SortOrder::Ascending);
  check_sort<float>(GetParam(), Shape::Special, SortOrder::Descending);
}

INSTANTIATE_TEST_SUITE_P(EdgeSizes, SortSizes, testing::ValuesIn(edge_sizes()));

TEST(Sort, Shapes) {
  for (Shape s :
       {Shape::FewDistinct, Shape::AllEqual, Shape::Sorted, Shape::Reversed, Shape::Special}) {
    for (SortOrder o : {SortOrder::Ascending, SortOrder::Descending}) {
      check_sort<float>(70001, s, o);
      check_sort<std::int32_t>(70001, s, o);
      check_sort<std::uint32_t>(4099, s, o);
    }
  }
}

TEST(Sort, Ranges) {
  for (Range r : {Range{1, whole}, Range{3, 1}, Range{100, 5000}, Range{9000, 1000}}) {
    check_sort<float>(10000, Shape::Special, SortOrder::Ascending, r);
    check_sort<std::uint32_t>(10000, Shape::FewDistinct, SortOrder::Descending, r);
  }
}

// The largest Buffer the device binds; on llvmpipe (slow) a size past 65,535 work groups of
// 256 instead, which still shows any loop or work-group count cap.
TEST(Sort, PastTheLoopCapAndLargestBindable) {
  Context& ctx = context();
  check_sort<std::uint32_t>(past_loop_cap(ctx), Shape::Random, SortOrder::Ascending);
  if (!ctx.info().is_software)
    check_sort<float>(largest_bindable(ctx), Shape::Special, SortOrder::Descending);
}

// The variant the device does not use by default (work-group ranking on CPU devices, the
// serial tiles on GPUs) at moderate sizes, and a few other shapes.
TEST(Sort, OtherVariantsAndShapes) {
  Context ctx;
  const bool serial = primitive_tuning(ctx).sort_serial == 1;
  PrimitiveTuning t;
  t.sort_serial = serial ? 0 : 1;
  set_primitive_tuning(ctx, t);
  EXPECT_EQ(primitive_tuning(ctx).sort_serial, serial ? 0 : 1);
  for (std::size_t n : {1u, 2u, 255u, 257u, 4099u, 70001u}) {
    check_sort<std::uint32_t>(n, Shape::Random, SortOrder::Ascending, {}, ctx);
    check_sort<float>(n, Shape::Special, SortOrder::Descending, {}, ctx);
    check_sort<std::int32_t>(n, Shape::FewDistinct, SortOrder::Ascending, {n / 4, n / 2}, ctx);
  }
  t.sort_serial = 0;
  t.sort_local = 64;
  t.sort_keys = 20;
  set_primitive_tuning(ctx, t);
  check_sort<float>(100003, Shape::Special, SortOrder::Ascending, {}, ctx);
  t.sort_serial = 1;
  t.sort_local = 3;
  t.sort_keys = 100;
  set_primitive_tuning(ctx, t);
  check_sort<std::uint32_t>(100003, Shape::FewDistinct, SortOrder::Descending, {}, ctx);
  t.sort_local = 7;  // a ranked sort needs multiples of 32
  t.sort_serial = 0;
  EXPECT_THROW(set_primitive_tuning(ctx, t), ArgumentError);
}

// Calls on the same Buffers replay a recorded sequence of the passes (the first runs them,
// the second records them): new keys in the same Buffers each time, every result checked as
// the stable sort; a call on other Buffers in between grows the scratch, so the recording
// must be made again.
TEST(Sort, RepeatedCallsOnTheSameBuffersReplay) {
  Context& ctx = context();
  SCOPED_TRACE(testing::Message() << "seed=" << seed());
  const std::size_t n = 20011;
  Buffer keys(ctx, ElementType::Float32, n), sorted(ctx, ElementType::Float32, n);
  Buffer values(ctx, ElementType::Uint32, n), indices(ctx, ElementType::Uint32, n);
  std::vector<std::uint32_t> iota(n);
  std::iota(iota.begin(), iota.end(), 0u);
  for (int call = 0; call < 5; ++call) {
    SCOPED_TRACE(testing::Message() << "call " << call);
    if (call == 3) check_sort<float>(3 * n, Shape::Random, SortOrder::Ascending);
    const auto k = make_keys<float>(n, call % 2 == 0 ? Shape::Special : Shape::Random);
    keys.upload(k);
    argsort(ctx, keys, indices, SortOrder::Descending);
    const auto perm = indices.to_vector<std::uint32_t>();
    ASSERT_TRUE(is_stable_sort(k, 0, n, perm, SortOrder::Descending));
    sorted.upload(k);
    values.upload(iota);
    sort_by_key(ctx, sorted, values, SortOrder::Descending);
    ASSERT_EQ(values.to_vector<std::uint32_t>(), perm);
    const auto got = sorted.to_vector<float>();
    for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(same_bits(got[i], k[perm[i]])) << i;
  }
}

TEST(Sort, HostSpans) {
  Context& ctx = context();
  auto keys = make_keys<float>(30011, Shape::Special);
  const auto perm = reference_permutation(keys, 0, keys.size(), SortOrder::Ascending);
  EXPECT_EQ(argsort<float>(ctx, keys), perm);
  std::vector<std::uint32_t> values(keys.size());
  std::iota(values.begin(), values.end(), 0u);
  auto sorted = keys;
  sort_by_key<float>(ctx, sorted, values);
  EXPECT_EQ(values, perm);
  auto only = keys;
  sort<float>(ctx, only);
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_TRUE(same_bits(only[i], keys[perm[i]])) << i;
  std::vector<std::int32_t> none;
  sort<std::int32_t>(ctx, none);
  EXPECT_TRUE(argsort<std::int32_t>(ctx, none).empty());
}

TEST(Sort, Errors) {
  Context& ctx = context();
  Buffer keys = Buffer::from(ctx, random_floats(100));
  Buffer short_values = poisoned<std::uint32_t>(ctx, 99);
  Buffer float_values = poisoned<float>(ctx, 100);
  EXPECT_THROW(sort_by_key(ctx, keys, short_values), SizeMismatchError);
  EXPECT_THROW(sort_by_key(ctx, keys, float_values), TypeMismatchError);
  EXPECT_THROW(argsort(ctx, keys, float_values), TypeMismatchError);
  EXPECT_THROW(argsort(ctx, keys, short_values), SizeMismatchError);
  EXPECT_THROW(sort(ctx, keys, SortOrder::Ascending, {50, 51}), SizeMismatchError);
  std::vector<float> k(3);
  std::vector<std::uint32_t> v(2);
  EXPECT_THROW(sort_by_key<float>(ctx, k, v), SizeMismatchError);
  for (auto x : short_values.to_vector<std::uint32_t>()) EXPECT_EQ(x, poison_uint);
}

}  // namespace
}  // namespace gpgpu::test
