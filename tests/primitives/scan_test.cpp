// gpgpu::inclusive_scan / exclusive_scan with both algorithms: every output checked against a
// CPU reference (float64 for float sums, within the stated depth bound; exact otherwise).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitives_test_support.hpp"

namespace gpgpu::test {
namespace {

const ScanAlgorithm algorithms[] = {ScanAlgorithm::SinglePass, ScanAlgorithm::ReduceThenScan};

const char* name(ScanAlgorithm a) {
  return a == ScanAlgorithm::SinglePass ? "single-pass" : "reduce-then-scan";
}

template <class T>
T apply(Op op, T a, T b) {
  if constexpr (std::is_same_v<T, float>) {
    switch (op) {
      case Op::Sum:
        return a + b;
      case Op::Product:
        return a * b;
      case Op::Min:
        return std::min(a, b);
      case Op::Max:
        return std::max(a, b);
    }
  } else {
    const auto ua = std::bit_cast<std::uint32_t>(a), ub = std::bit_cast<std::uint32_t>(b);
    switch (op) {
      case Op::Sum:
        return std::bit_cast<T>(ua + ub);
      case Op::Product:
        return std::bit_cast<T>(ua * ub);
      case Op::Min:
        return std::min(a, b);
      case Op::Max:
        return std::max(a, b);
    }
  }
  return a;
}

template <class T>
T identity(Op op) {
  switch (op) {
    case Op::Sum:
      return T(0);
    case Op::Product:
      return T(1);
    case Op::Min:
      return std::is_same_v<T, float> ? T(INFINITY) : std::numeric_limits<T>::max();
    case Op::Max:
      return std::is_same_v<T, float> ? T(-INFINITY) : std::numeric_limits<T>::lowest();
  }
  return T(0);
}

template <class T>
std::vector<T> random_values(std::size_t n) {
  if constexpr (std::is_same_v<T, float>) {
    return random_floats(n, -4.0f, 4.0f);
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return random_ints(n, std::numeric_limits<std::int32_t>::min(),
                       std::numeric_limits<std::int32_t>::max());
  } else {
    return random_uints(n, 1, 0xFFFFFFFFu);
  }
}

// Checks out[out_first + i] for element first + i of x (components c, component k):
// float sums within d * u * sum_{j <= i} |x_j| of the float64 prefix, everything else exact
// against the same operations done in order on the CPU (min/max are exact in any order;
// integer sums and products wrap exactly).
template <class T>
void expect_scan(const std::vector<T>& got, const std::vector<T>& x, std::size_t first,
                 std::size_t count, std::size_t out_first, int components, Op op, bool inclusive,
                 int depth) {
  const auto c = static_cast<std::size_t>(components);
  std::size_t failures = 0;
  for (std::size_t k = 0; k < c; ++k) {
    T run = identity<T>(op);
    double exact = 0, magnitude = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const T v = x[(first + i) * c + k];
      const T before = run;
      const double exact_before = exact, magnitude_before = magnitude;
      run = apply(op, run, v);
      exact += static_cast<double>(v);
      magnitude += std::fabs(static_cast<double>(v));
      const T g = got[(out_first + i) * c + k];
      bool ok;
      if (std::is_same_v<T, float> && op == Op::Sum) {
        const double want = inclusive ? exact : exact_before;
        const double bound = (depth + 1) * eps32 * (inclusive ? magnitude : magnitude_before);
        ok = std::fabs(static_cast<double>(g) - want) <= bound;
      } else {
        ok = same_bits(g, inclusive ? run : before);
      }
      if (!ok && ++failures <= 5) {
        ADD_FAILURE() << "output " << out_first + i << " component " << k << ": got " << g
                      << ", expected " << (inclusive ? run : before);
      }
    }
  }
  EXPECT_EQ(failures, 0u);
}

template <class T>
void check_scan(std::size_t n, Op op, bool inclusive, ScanAlgorithm algorithm, int components = 1,
                Range range = {}, std::size_t out_first = 0) {
  Context& ctx = context();
  SCOPED_TRACE(testing::Message() << "n=" << n << " op=" << to_string(op) << " "
                                  << (inclusive ? "inclusive" : "exclusive") << " "
                                  << name(algorithm) << " components=" << components
                                  << " seed=" << seed());
  const auto c = static_cast<std::size_t>(components);
  const auto x = random_values<T>(n * c);
  const Buffer in = Buffer::from(ctx, x);
  const std::size_t count = range.count == whole ? n - range.first : range.count;
  // Poison around the written window: one element before and after it must survive (no
  // element after it when the output is as large as the device binds).
  const std::size_t after = (out_first + count + 1) * c <= largest_bindable(ctx) ? 1 : 0;
  Buffer out = poisoned<T>(ctx, (out_first + count + after) * c);
  const ScanOptions options{components, range, out_first, algorithm};
  if (inclusive) {
    inclusive_scan(ctx, in, out, op, options);
  } else {
    exclusive_scan(ctx, in, out, op, options);
  }
  const auto got = out.to_vector<T>();
  for (std::size_t i = 0; i < out_first * c; ++i) ASSERT_TRUE(same_bits(got[i], poison<T>())) << i;
  for (std::size_t i = (out_first + count) * c; i < got.size(); ++i) {
    ASSERT_TRUE(same_bits(got[i], poison<T>())) << i;
  }
  expect_scan(got, x, range.first, count, out_first, components, op, inclusive,
              scan_error_depth(ctx, count, components, algorithm));
}

class ScanSizes : public testing::TestWithParam<std::size_t> {};

TEST_P(ScanSizes, FloatSum) {
  for (ScanAlgorithm a : algorithms) {
    check_scan<float>(GetParam(), Op::Sum, true, a);
    check_scan<float>(GetParam(), Op::Sum, false, a);
  }
}
TEST_P(ScanSizes, FloatMinMax) {
  check_scan<float>(GetParam(), Op::Max, true, ScanAlgorithm::SinglePass);
  check_scan<float>(GetParam(), Op::Min, false, ScanAlgorithm::ReduceThenScan);
}
TEST_P(ScanSizes, Integers) {
  for (ScanAlgorithm a : algorithms) {
    check_scan<std::int32_t>(GetParam(), Op::Sum, true, a);
    check_scan<std::uint32_t>(GetParam(), Op::Sum, false, a);
  }
  check_scan<std::int32_t>(GetParam(), Op::Min, true, ScanAlgorithm::SinglePass);
  check_scan<std::uint32_t>(GetParam(), Op::Product, true, ScanAlgorithm::ReduceThenScan);
  check_scan<std::int32_t>(GetParam(), Op::Max, false, ScanAlgorithm::ReduceThenScan);
}

INSTANTIATE_TEST_SUITE_P(EdgeSizes, ScanSizes, testing::ValuesIn(edge_sizes()));

TEST(Scan, PastTheLoopCapAndLargestBindable) {
  for (ScanAlgorithm a : algorithms) {
    check_scan<std::uint32_t>(past_loop_cap(context()), Op::Sum, true, a);
    check_scan<float>(largest_bindable(context()), Op::Sum, false, a);
  }
}

TEST(Scan, Vectors) {
  for (int c : {2, 3, 4}) {
    for (std::size_t n : {1u, 300u, 4097u, 100003u}) {
      for (ScanAlgorithm a : algorithms) {
        check_scan<float>(n, Op::Sum, true, a, c);
        check_scan<std::int32_t>(n, Op::Max, false, a, c);
        check_scan<std::uint32_t>(n, Op::Sum, true, a, c);
      }
    }
  }
}

TEST(Scan, RangesAndOffsets) {
  for (ScanAlgorithm a : algorithms) {
    for (std::size_t out_first : {0u, 1u, 3u, 4u}) {
      for (Range r : {Range{0, whole}, Range{1, whole}, Range{5, 70000}, Range{8, 1}}) {
        check_scan<float>(80000, Op::Sum, true, a, 1, r, out_first);
        check_scan<std::uint32_t>(80000, Op::Sum, false, a, 1, r, out_first);
      }
    }
  }
}

TEST(Scan, InPlace) {
  Context& ctx = context();
  for (ScanAlgorithm a : algorithms) {
    const auto x = random_uints(300007, 1, 1000);
    Buffer b = Buffer::from(ctx, x);
    inclusive_scan(ctx, b, b, Op::Sum, {1, {}, 0, a});
    const auto got = b.to_vector<std::uint32_t>();
    std::uint32_t run = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      run += x[i];
      ASSERT_EQ(got[i], run) << i << " " << name(a);
    }
  }
}

// A non-commutative operator (2x2 matrix products modulo 2^32 with odd determinants): any
// reordering of operands at any position shows.
TEST(Scan, GlslOperatorKeepsOperandOrder) {
  Context& ctx = context();
  const GlslOp matmul2{
      "uvec4(a.x * b.x + a.y * b.z, a.x * b.y + a.y * b.w, a.z * b.x + a.w * b.z, "
      "a.z * b.y + a.w * b.w)",
      "uvec4(1u, 0u, 0u, 1u)"};
  for (std::size_t n : {1u, 2u, 1025u, 100003u}) {
    for (ScanAlgorithm a : algorithms) {
      for (bool inclusive : {true, false}) {
        SCOPED_TRACE(testing::Message()
                     << "n=" << n << " " << name(a) << " inclusive=" << inclusive);
        auto x = random_uints(4 * n, 1, 0xFFFFFFFFu);
        for (std::size_t i = 0; i < n; ++i) {
          std::uint32_t* m = &x[4 * i];
          if (((m[0] * m[3] - m[1] * m[2]) & 1u) == 0) m[0] = 1, m[1] = 2, m[2] = 4, m[3] = 9;
        }
        const Buffer in = Buffer::from(ctx, x);
        Buffer out = poisoned<std::uint32_t>(ctx, 4 * n);
        const ScanOptions o{4, {}, 0, a};
        if (inclusive) {
          inclusive_scan(ctx, in, out, matmul2, o);
        } else {
          exclusive_scan(ctx, in, out, matmul2, o);
        }
        const auto got = out.to_vector<std::uint32_t>();
        std::array<std::uint32_t, 4> run = {1, 0, 0, 1};
        for (std::size_t i = 0; i < n; ++i) {
          const auto before = run;
          const std::uint32_t* b = &x[4 * i];
          run = {before[0] * b[0] + before[1] * b[2], before[0] * b[1] + before[1] * b[3],
                 before[2] * b[0] + before[3] * b[2], before[2] * b[1] + before[3] * b[3]};
          const auto& want = inclusive ? run : before;
          for (int k = 0; k < 4; ++k) ASSERT_EQ(got[4 * i + k], want[k]) << "element " << i;
        }
      }
    }
  }
}

TEST(Scan, RepeatedCallsReuseFlags) {
  // Single-pass flags carry an epoch per call; many calls in a row must stay correct.
  Context& ctx = context();
  const auto x = random_uints(50000, 1, 100);
  const Buffer in = Buffer::from(ctx, x);
  Buffer out(ctx, ElementType::Uint32, x.size());
  for (int call = 0; call < 20; ++call) {
    const std::size_t n = 1000 + 2400 * static_cast<std::size_t>(call);
    out.upload(std::vector<std::uint32_t>(x.size(), poison_uint));
    inclusive_scan(ctx, in, out, Op::Sum, {1, {0, n}, 0, ScanAlgorithm::SinglePass});
    const auto got = out.to_vector<std::uint32_t>();
    std::uint32_t run = 0;
    for (std::size_t i = 0; i < n; ++i) {
      run += x[i];
      ASSERT_EQ(got[i], run) << "call " << call << " element " << i;
    }
    ASSERT_EQ(got[n], poison_uint);
  }
}

// The same call again and again replays a recorded sequence (the first call runs, the second
// records): new inputs each time, every element checked exactly. On the look-back kernels
// (the subgroup path, emulated on llvmpipe when asked for) each replay must take a fresh
// epoch: flags left by the last call under a reused epoch would read as ready, with the
// last call's sums, where a tile looks back before its predecessor published (on GPUs;
// llvmpipe runs the tiles nearly in order, so there a reused epoch seldom shows).
TEST(Scan, RepeatedCallsReplayWithFreshEpochs) {
  for (const int subgroups : {-1, 1}) {
    SCOPED_TRACE(testing::Message() << "subgroups " << subgroups << " seed " << seed());
    Context ctx;
    PrimitiveTuning t;
    t.subgroups = subgroups;
    try {
      set_primitive_tuning(ctx, t);
    } catch (const ArgumentError& e) {
      // A device with subgroups neither native nor emulated (zink over lavapipe:
      // docs/portability.md) refuses the look-back kernels by name; the other half still runs.
      ASSERT_EQ(subgroups, 1) << e.what();
      EXPECT_EQ(ctx.info().lockstep_width, 0) << e.what();
      EXPECT_NE(std::string(e.what()).find("GL_KHR_shader_subgroup"), std::string::npos)
          << e.what();
      continue;
    }
    const std::size_t n = 40000;
    Buffer in(ctx, ElementType::Uint32, n), out(ctx, ElementType::Uint32, n);
    for (int call = 0; call < 6; ++call) {
      const auto x = random_uints(n, 1, 1000);
      in.upload(x);
      out.upload(std::vector<std::uint32_t>(n, poison_uint));
      exclusive_scan(ctx, in, out, Op::Sum, {1, {}, 0, ScanAlgorithm::SinglePass});
      const auto got = out.to_vector<std::uint32_t>();
      std::uint32_t run = 0;
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[i], run) << "call " << call << " element " << i;
        run += x[i];
      }
    }
  }
}

TEST(Scan, HostSpans) {
  Context& ctx = context();
  const auto x = random_ints(12345, -100, 100);
  const auto inc = inclusive_scan<std::int32_t>(ctx, x);
  const auto exc = exclusive_scan<std::int32_t>(ctx, x, Op::Max);
  std::int32_t sum = 0, max = std::numeric_limits<std::int32_t>::min();
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(exc[i], max);
    sum += x[i];
    max = std::max(max, x[i]);
    EXPECT_EQ(inc[i], sum);
  }
  EXPECT_TRUE(inclusive_scan<float>(ctx, std::vector<float>{}).empty());
}

TEST(Scan, Errors) {
  Context& ctx = context();
  const Buffer f = Buffer::from(ctx, random_floats(100));
  Buffer small = poisoned<float>(ctx, 99);
  Buffer ints = poisoned<std::int32_t>(ctx, 100);
  EXPECT_THROW(inclusive_scan(ctx, f, small), SizeMismatchError);
  EXPECT_THROW(inclusive_scan(ctx, f, ints), TypeMismatchError);
  EXPECT_THROW(exclusive_scan(ctx, f, small, Op::Sum, {1, {0, 90}, 10}), SizeMismatchError);
  EXPECT_THROW(exclusive_scan(ctx, f, small, Op::Sum, {3, {}, 0}), SizeMismatchError);
  EXPECT_THROW(exclusive_scan(ctx, f, small, GlslOp{"a ++ b", "0.0"}, {1, {0, 10}, 0}),
               CompileError);
  for (float v : small.to_vector<float>()) EXPECT_TRUE(std::isnan(v));
}

}  // namespace
}  // namespace gpgpu::test
