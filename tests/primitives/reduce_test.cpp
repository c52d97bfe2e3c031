// gpgpu::reduce against CPU references: float sums against float64 within the stated tree
// bound, integer results exact (wrapping as GLSL does), min/max exact, every element of
// every output checked, outputs poisoned before each run.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitives_test_support.hpp"

namespace gpgpu::test {
namespace {

constexpr std::uint32_t wrap_add(std::uint32_t a, std::uint32_t b) {
  return a + b;
}
constexpr std::uint32_t wrap_mul(std::uint32_t a, std::uint32_t b) {
  return a * b;
}

// The exact integer result (two's complement wrap-around, like GLSL's int and uint).
template <class T>
T integer_reference(const std::vector<T>& x, std::size_t first, std::size_t count, Op op) {
  std::uint32_t acc =
      std::bit_cast<std::uint32_t>(op == Op::Sum       ? T(0)
                                   : op == Op::Product ? T(1)
                                   : op == Op::Min     ? std::numeric_limits<T>::max()
                                                       : std::numeric_limits<T>::lowest());
  for (std::size_t i = first; i < first + count; ++i) {
    const auto v = std::bit_cast<std::uint32_t>(x[i]);
    switch (op) {
      case Op::Sum:
        acc = wrap_add(acc, v);
        break;
      case Op::Product:
        acc = wrap_mul(acc, v);
        break;
      case Op::Min:
        acc = std::bit_cast<std::uint32_t>(std::min(std::bit_cast<T>(acc), x[i]));
        break;
      case Op::Max:
        acc = std::bit_cast<std::uint32_t>(std::max(std::bit_cast<T>(acc), x[i]));
        break;
    }
  }
  return std::bit_cast<T>(acc);
}

// Float checks: min/max exact; a sum within d * u * sum|x| of the float64 sum (d: the depth
// of the tree reduce uses, reduce_error_depth; +1 for rounding the float64 sum to float);
// a product within (n + 1) * u relative (n roundings of at most u each, to first order, +1).
void expect_float_result(float got, const std::vector<float>& x, std::size_t first,
                         std::size_t count, Op op, int depth, std::size_t stride = 1,
                         std::size_t component = 0) {
  double exact = op == Op::Sum ? 0.0 : op == Op::Product ? 1.0 : NAN;
  double magnitude = 0.0;
  float extreme = op == Op::Min ? INFINITY : -INFINITY;
  for (std::size_t i = first; i < first + count; ++i) {
    const float v = x[i * stride + component];
    if (op == Op::Sum) exact += v;
    if (op == Op::Product) exact *= v;
    magnitude += std::fabs(static_cast<double>(v));
    extreme = op == Op::Min ? std::min(extreme, v) : std::max(extreme, v);
  }
  if (op == Op::Min || op == Op::Max) {
    EXPECT_TRUE(same_bits(got, extreme)) << got << " vs " << extreme;
  } else if (op == Op::Sum) {
    const double bound = (depth + 1) * eps32 * magnitude;
    EXPECT_LE(std::fabs(got - exact), bound) << "n=" << count << " depth=" << depth;
  } else {
    const double bound = (static_cast<double>(count) + 1.0) * eps32 * std::fabs(exact);
    EXPECT_LE(std::fabs(got - exact), bound) << "n=" << count;
  }
}

template <class T>
std::vector<T> random_values(std::size_t n, Op op) {
  if constexpr (std::is_same_v<T, float>) {
    // Products of values near 1 neither underflow nor overflow at the tested sizes.
    return op == Op::Product ? random_floats(n, 0.999f, 1.001f) : random_floats(n, -4.0f, 4.0f);
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    auto v = random_ints(n, std::numeric_limits<std::int32_t>::min() / 2,
                         std::numeric_limits<std::int32_t>::max() / 2);
    if (op == Op::Product) {
      for (auto& e : v) e |= 1;  // odd factors: the wrapped product never becomes 0
    }
    return v;
  } else {
    auto v = random_uints(n, 1u, 0xFFFFFFFFu);
    if (op == Op::Product) {
      for (auto& e : v) e |= 1u;
    }
    return v;
  }
}

template <class T>
void check_reduce(std::size_t n, Op op, Range range = {}) {
  Context& ctx = context();
  SCOPED_TRACE(testing::Message() << "n=" << n << " op=" << to_string(op) << " seed=" << seed());
  const auto x = random_values<T>(n, op);
  const Buffer in = Buffer::from(ctx, x);
  const std::size_t first = range.first;
  const std::size_t count = range.count == whole ? n - first : range.count;

  // Device result into a poisoned Buffer at an offset: the neighbours must stay poisoned.
  Buffer out = poisoned<T>(ctx, 5);
  reduce(ctx, in, out, op, {1, range, 2});
  const auto got = out.to_vector<T>();
  for (std::size_t i : {0, 1, 3, 4})
    EXPECT_TRUE(same_bits(got[i], poison<T>())) << "out[" << i << "]";
  // The host-returning overload gives the same value (the order is fixed).
  const T host = reduce<T>(ctx, in, op, range);
  EXPECT_TRUE(same_bits(host, got[2]));
  if constexpr (std::is_same_v<T, float>) {
    expect_float_result(got[2], x, first, count, op, reduce_error_depth(ctx, count));
  } else {
    EXPECT_EQ(got[2], integer_reference(x, first, count, op));
  }
}

class ReduceSizes : public testing::TestWithParam<std::size_t> {};

TEST_P(ReduceSizes, FloatSumMinMax) {
  for (Op op : {Op::Sum, Op::Min, Op::Max}) check_reduce<float>(GetParam(), op);
}
TEST_P(ReduceSizes, Int32AllOps) {
  for (Op op : {Op::Sum, Op::Product, Op::Min, Op::Max}) check_reduce<std::int32_t>(GetParam(), op);
}
TEST_P(ReduceSizes, Uint32AllOps) {
  for (Op op : {Op::Sum, Op::Product, Op::Min, Op::Max})
    check_reduce<std::uint32_t>(GetParam(), op);
}
TEST_P(ReduceSizes, FloatProduct) {
  if (GetParam() > 1000003) GTEST_SKIP() << "float products are tested up to 10^6 terms";
  check_reduce<float>(GetParam(), Op::Product);
}

INSTANTIATE_TEST_SUITE_P(EdgeSizes, ReduceSizes, testing::ValuesIn(edge_sizes()));

TEST(Reduce, PastTheLoopCapAndLargestBindable) {
  for (std::size_t n : {past_loop_cap(context()), largest_bindable(context())}) {
    check_reduce<float>(n, Op::Sum);
    check_reduce<std::int32_t>(n, Op::Max);
  }
}

TEST(Reduce, Ranges) {
  for (std::size_t n : {300u, 100000u}) {
    for (Range r : {Range{1, 1}, Range{3, whole}, Range{7, n - 20}, Range{n - 5, 5}, Range{4, 4}}) {
      check_reduce<float>(n, Op::Sum, r);
      check_reduce<std::uint32_t>(n, Op::Min, r);
      check_reduce<std::int32_t>(n, Op::Sum, r);
    }
  }
}

TEST(Reduce, EmptyGivesIdentity) {
  Context& ctx = context();
  const std::vector<float> none;
  EXPECT_EQ(reduce(ctx, std::span<const float>(none)), 0.0f);
  EXPECT_EQ(reduce(ctx, std::span<const float>(none), Op::Product), 1.0f);
  EXPECT_EQ(reduce(ctx, std::span<const float>(none), Op::Min), INFINITY);
  EXPECT_EQ(reduce(ctx, std::span<const float>(none), Op::Max), -INFINITY);
  const std::vector<std::int32_t> no_ints;
  EXPECT_EQ(reduce(ctx, std::span<const std::int32_t>(no_ints), Op::Min),
            std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(reduce(ctx, std::span<const std::int32_t>(no_ints), Op::Max),
            std::numeric_limits<std::int32_t>::min());
  const std::vector<std::uint32_t> no_uints;
  EXPECT_EQ(reduce(ctx, std::span<const std::uint32_t>(no_uints), Op::Min), 0xFFFFFFFFu);
  const Buffer b = Buffer::from(ctx, random_floats(10));
  EXPECT_EQ(reduce<float>(ctx, b, Op::Sum, Range{4, 0}), 0.0f);
}

TEST(Reduce, HostSpans) {
  Context& ctx = context();
  const auto x = random_floats(10007);
  double exact = 0, magnitude = 0;
  for (float v : x) exact += v, magnitude += std::fabs(v);
  const float got = reduce(ctx, std::span<const float>(x));
  EXPECT_LE(std::fabs(got - exact), (reduce_error_depth(ctx, x.size()) + 1) * eps32 * magnitude);
  const auto u = random_uints(1001, 1, 1000000);
  EXPECT_EQ(reduce(ctx, std::span<const std::uint32_t>(u), Op::Max),
            *std::max_element(u.begin(), u.end()));
}

TEST(Reduce, InfinitiesAndNaNInSums) {
  Context& ctx = context();
  auto x = random_floats(5000);
  x[1234] = INFINITY;
  EXPECT_EQ(reduce(ctx, std::span<const float>(x)), INFINITY);
  EXPECT_EQ(reduce(ctx, std::span<const float>(x), Op::Max), INFINITY);
  x[4000] = -INFINITY;
  EXPECT_TRUE(std::isnan(reduce(ctx, std::span<const float>(x))));
  EXPECT_EQ(reduce(ctx, std::span<const float>(x), Op::Min), -INFINITY);
  x[4000] = 1.0f;
  x[17] = NAN;
  EXPECT_TRUE(std::isnan(reduce(ctx, std::span<const float>(x))));
}

// vecN elements: every component reduced on its own.
template <class T>
void check_vectors(std::size_t n, int components, Op op) {
  Context& ctx = context();
  SCOPED_TRACE(testing::Message() << "n=" << n << " components=" << components
                                  << " op=" << to_string(op) << " seed=" << seed());
  const auto c = static_cast<std::size_t>(components);
  const auto x = random_values<T>(n * c, op);
  const Buffer in = Buffer::from(ctx, x);
  Buffer out = poisoned<T>(ctx, c + 2);
  reduce(ctx, in, out, op, {components, {}, 1});
  const auto got = out.to_vector<T>();
  EXPECT_TRUE(same_bits(got[0], poison<T>()));
  EXPECT_TRUE(same_bits(got[c + 1], poison<T>()));
  for (std::size_t k = 0; k < c; ++k) {
    SCOPED_TRACE(testing::Message() << "component " << k);
    if constexpr (std::is_same_v<T, float>) {
      expect_float_result(got[1 + k], x, 0, n, op, reduce_error_depth(ctx, n, components), c, k);
    } else {
      std::vector<T> column(n);
      for (std::size_t i = 0; i < n; ++i) column[i] = x[i * c + k];
      EXPECT_EQ(got[1 + k], integer_reference(column, 0, n, op));
    }
  }
  const auto host = reduce_vector<T>(ctx, in, components, op);
  for (std::size_t k = 0; k < c; ++k) EXPECT_TRUE(same_bits(host[k], got[1 + k]));
}

TEST(Reduce, Vectors) {
  for (int components : {2, 3, 4}) {
    for (std::size_t n : {1u, 255u, 257u, 65537u, 300007u}) {
      check_vectors<float>(n, components, Op::Sum);
      check_vectors<float>(n, components, Op::Max);
      check_vectors<std::int32_t>(n, components, Op::Min);
      check_vectors<std::uint32_t>(n, components, Op::Sum);
      check_vectors<std::uint32_t>(n, components, Op::Product);
    }
  }
}

// A non-commutative GLSL operator: 2x2 matrix products modulo 2^32 (exact, associative,
// order-sensitive), so any reordering of operands shows. The matrices have odd
// determinants (invertible modulo 2^32), so long products never collapse to zero.
TEST(Reduce, GlslOperatorKeepsOperandOrder) {
  Context& ctx = context();
  const GlslOp matmul2{
      "uvec4(a.x * b.x + a.y * b.z, a.x * b.y + a.y * b.w, a.z * b.x + a.w * b.z, "
      "a.z * b.y + a.w * b.w)",
      "uvec4(1u, 0u, 0u, 1u)"};
  for (std::size_t n : {1u, 2u, 257u, 8191u, 100003u, 1000003u}) {
    SCOPED_TRACE(testing::Message() << "n=" << n << " seed=" << seed());
    auto x = random_uints(4 * n, 1, 0xFFFFFFFFu);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t* m = &x[4 * i];
      if (((m[0] * m[3] - m[1] * m[2]) & 1u) == 0) m[0] = m[1] = m[2] = m[3] = 0;
      if (m[0] == 0)
        m[0] = 1, m[1] = 2, m[2] = 4, m[3] = 9;  // det 1: a matrix that does not commute with most
    }
    std::array<std::uint32_t, 4> expected = {1, 0, 0, 1};
    for (std::size_t i = 0; i < n; ++i) {
      const auto& a = expected;
      const std::uint32_t* b = &x[4 * i];
      expected = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                  a[2] * b[1] + a[3] * b[3]};
    }
    const Buffer in = Buffer::from(ctx, x);
    const auto got = reduce_vector<std::uint32_t>(ctx, in, 4, matmul2);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(got[k], expected[k]) << "component " << k;
  }
}

TEST(Reduce, GlslOperatorOnFloats) {
  Context& ctx = context();
  const GlslOp max_abs{"max(abs(a), abs(b))", "0.0"};
  for (std::size_t n : {1u, 1000u, 1000003u}) {
    const auto x = random_floats(n);
    float expected = 0;
    for (float v : x) expected = std::max(expected, std::fabs(v));
    EXPECT_EQ(reduce(ctx, std::span<const float>(x), max_abs), expected);
  }
  // A float sum through the in-order path obeys its own depth bound.
  const auto x = random_floats(500009);
  const GlslOp plus{"a + b", "0.0"};
  double exact = 0, magnitude = 0;
  for (float v : x) exact += v, magnitude += std::fabs(v);
  const float got = reduce(ctx, std::span<const float>(x), plus);
  EXPECT_LE(std::fabs(got - exact),
            (reduce_error_depth(ctx, x.size(), 1, false) + 1) * eps32 * magnitude);
}

TEST(Reduce, ErrorsAreSpecificAndChangeNothing) {
  Context& ctx = context();
  const Buffer f = Buffer::from(ctx, random_floats(100));
  Buffer out = poisoned<float>(ctx, 4);
  Buffer int_out = poisoned<std::int32_t>(ctx, 4);
  EXPECT_THROW(reduce(ctx, f, int_out), TypeMismatchError);
  EXPECT_THROW(reduce<std::int32_t>(ctx, f), TypeMismatchError);
  EXPECT_THROW(reduce(ctx, f, out, Op::Sum, {1, {}, 4}), SizeMismatchError);
  EXPECT_THROW(reduce(ctx, f, out, Op::Sum, {1, {90, 11}, 0}), SizeMismatchError);
  EXPECT_THROW(reduce(ctx, f, out, Op::Sum, {1, {101, whole}, 0}), SizeMismatchError);
  EXPECT_THROW(reduce(ctx, f, out, Op::Sum, {5, {}, 0}), ArgumentError);
  EXPECT_THROW(reduce(ctx, f, out, Op::Sum, {3, {}, 0}), SizeMismatchError);  // 100 % 3 != 0
  EXPECT_THROW(reduce(ctx, f, out, GlslOp{"a +* b", "0.0"}), CompileError);
  Buffer empty;
  EXPECT_THROW(reduce(ctx, empty, out), ArgumentError);
  Context other;
  const Buffer foreign = Buffer::from(other, random_floats(10));
  EXPECT_THROW(reduce(ctx, foreign, out), ArgumentError);
  for (float v : out.to_vector<float>()) EXPECT_TRUE(std::isnan(v));  // still poisoned
  try {
    reduce(ctx, f, int_out);
  } catch (const TypeMismatchError& e) {
    EXPECT_NE(std::string(e.what()).find("'out' holds int32 but float32 was expected"),
              std::string::npos)
        << e.what();
  }
}

TEST(Reduce, ReleasedContextIsAClearError) {
  Context ctx;
  const Buffer x = Buffer::from(ctx, random_floats(1000));
  EXPECT_NE(reduce<float>(ctx, x), 0.0f);
  EXPECT_GT(primitive_scratch_bytes(ctx), 0u);
  ctx.release();
  try {
    (void)reduce<float>(ctx, x);
    FAIL() << "reduce on a released Context did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("released"), std::string::npos) << e.what();
  }
}

TEST(Reduce, ResourcesCanBeReleasedAndRemade) {
  Context ctx;
  const auto x = random_ints(5000, -1000, 1000);
  const std::int32_t expected = std::accumulate(x.begin(), x.end(), 0);
  EXPECT_EQ(reduce(ctx, std::span<const std::int32_t>(x)), expected);
  release_primitive_resources(ctx);
  EXPECT_EQ(primitive_scratch_bytes(ctx), 0u);
  EXPECT_EQ(reduce(ctx, std::span<const std::int32_t>(x)), expected);
  // A destroyed Context with live attachments frees them (checked by the sanitizer build).
}

}  // namespace
}  // namespace gpgpu::test
