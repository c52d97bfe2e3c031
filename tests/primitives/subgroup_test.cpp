// Every primitive on the subgroup kernels (PrimitiveTuning::subgroups = 1: native on GPUs with
// GL_KHR_shader_subgroup, emulated on llvmpipe) with the GPU-style loads, against CPU
// references: odd sizes, one element, several tiles, unaligned ranges, in place, duplicates
// (stability), NaN, infinities, -0.0 and +0.0, skewed histograms. Outputs are poisoned first
// and every element is checked. (The whole primitives suite also runs on both families on
// the GPU: GPGPU_PRIMITIVES_SUBGROUPS=0|1.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "gpgpu/sequence.hpp"
#include "primitives_test_support.hpp"

namespace gpgpu::test {
namespace {

// A Context on the subgroup kernels, or null where the device has them neither natively
// (GL_KHR_shader_subgroup with the features the kernels use) nor emulated (a CPU device that
// runs work groups as lockstep SIMD vectors): then `why` says what set_primitive_tuning said.
Context* subgroup_context(std::string& why) {
  static std::string refusal;
  static Context* ctx = [] {
    auto* c = new Context();
    PrimitiveTuning t;
    t.subgroups = 1;
    t.texel_loads = 0;
    t.sort_serial = 0;
    t.sort_onesweep = 1;
    if (c->info().is_software) {  // a CPU device: 32 KiB of shared memory, slow emulation
      t.onesweep_local = 64;
      t.onesweep_keys = 16;
    }
    try {
      set_primitive_tuning(*c, t);
    } catch (const ArgumentError& e) {
      refusal = e.what();
      delete c;
      return static_cast<Context*>(nullptr);
    }
    return c;
  }();
  why = refusal;
  return ctx;
}

// The subgroup Context, or the test is skipped with the device's refusal (a measured
// capability: docs/portability.md lists the drivers without subgroups).
#define SUBGROUP_CONTEXT(ctx)                                                 \
  std::string refusal_;                                                       \
  Context* ctx##_pointer = subgroup_context(refusal_);                        \
  if (ctx##_pointer == nullptr) GTEST_SKIP() << "no subgroups: " << refusal_; \
  Context& ctx = *ctx##_pointer

// One element, a partial subgroup, several tiles (a tile is at most 16384 scalars), odd.
const std::size_t sizes[] = {1, 3, 31, 257, 4099, 40009, 200003};

TEST(Subgroups, Selected) {
  std::string why;
  if (subgroup_context(why) == nullptr) {
    // Refused, and for a reason: the tuning that asks for them throws on this device.
    Context ctx;
    PrimitiveTuning t;
    t.subgroups = 1;
    EXPECT_THROW(set_primitive_tuning(ctx, t), ArgumentError) << why;
    return;
  }
  SUBGROUP_CONTEXT(ctx);
  EXPECT_EQ(primitive_tuning(ctx).subgroups, 1);
  EXPECT_EQ(primitive_tuning(ctx).sort_onesweep, 1);
  PrimitiveTuning bad;
  bad.subgroups = 2;
  EXPECT_THROW(set_primitive_tuning(ctx, bad), ArgumentError);
  bad = {};
  bad.sort_onesweep = 3;
  EXPECT_THROW(set_primitive_tuning(ctx, bad), ArgumentError);
}

TEST(Subgroups, Reduce) {
  SUBGROUP_CONTEXT(ctx);
  for (std::size_t n : sizes) {
    SCOPED_TRACE(testing::Message() << "n=" << n << " seed=" << seed());
    const auto x = random_floats(n);
    const Buffer b = Buffer::from(ctx, x);
    expect_sum_and_max(ctx, b, x);
    EXPECT_EQ(reduce<float>(ctx, b, Op::Min), *std::min_element(x.begin(), x.end()));
    const auto u = random_uints(4 * n, 0, 0xFFFFFFFFu);
    const Buffer ub = Buffer::from(ctx, u);
    std::uint32_t s = 0, p = 1;
    for (std::size_t i = 1; i < 4 * n - 1; ++i) s += u[i], p *= u[i] | 1u;
    EXPECT_EQ(reduce<std::uint32_t>(ctx, ub, Op::Sum, {1, 4 * n - 2}), s);  // unaligned
    std::vector<std::uint32_t> odd(u.size());
    std::transform(u.begin(), u.end(), odd.begin(), [](std::uint32_t v) { return v | 1u; });
    EXPECT_EQ(reduce<std::uint32_t>(ctx, Buffer::from(ctx, odd), Op::Product, {1, 4 * n - 2}), p);
    const auto v2 = reduce_vector<std::uint32_t>(ctx, ub, 2);
    const auto v4 = reduce_vector<std::uint32_t>(ctx, ub, 4);
    for (int c = 0; c < 4; ++c) {
      std::uint32_t sc = 0;
      for (std::size_t i = static_cast<std::size_t>(c); i < 4 * n; i += 4) sc += u[i];
      EXPECT_EQ(v4[static_cast<std::size_t>(c)], sc) << c;
    }
    EXPECT_EQ(v2[0], v4[0] + v4[2]);
    EXPECT_EQ(v2[1], v4[1] + v4[3]);
  }
}

TEST(Subgroups, Scan) {
  SUBGROUP_CONTEXT(ctx);
  for (std::size_t n : sizes) {
    SCOPED_TRACE(testing::Message() << "n=" << n << " seed=" << seed());
    const auto x = random_ints(n + 3, -1000, 1000);
    const Buffer in = Buffer::from(ctx, x);
    // Unaligned input and output, exclusive, sum.
    Buffer out = poisoned<std::int32_t>(ctx, n + 5);
    exclusive_scan(ctx, in, out, Op::Sum, {1, {3, n}, 1});
    auto got = out.to_vector<std::int32_t>();
    EXPECT_EQ(got[0], poison<std::int32_t>());
    std::int32_t run = 0;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(got[1 + i], run) << i;
      run += x[3 + i];
    }
    // In place, inclusive max.
    Buffer inplace = Buffer::from(ctx, x);
    inclusive_scan(ctx, inplace, inplace, Op::Max);
    got = inplace.to_vector<std::int32_t>();
    run = std::numeric_limits<std::int32_t>::min();
    for (std::size_t i = 0; i < n + 3; ++i) ASSERT_EQ(got[i], run = std::max(run, x[i])) << i;
    // Floats: each prefix within (d + 1) * 2^-24 * sum_{j<=i} |x_j| of the float64 prefix.
    const auto f = random_floats(n);
    const auto fs = inclusive_scan<float>(ctx, f);
    const int d = scan_error_depth(ctx, n);
    double exact = 0, magnitude = 0;
    for (std::size_t i = 0; i < n; ++i) {
      exact += f[i];
      magnitude += std::fabs(f[i]);
      ASSERT_LE(std::fabs(fs[i] - exact), (d + 1) * eps32 * magnitude) << i;
    }
    // uint product and min, aligned.
    auto u = random_uints(n, 1, 3);
    const auto prod = exclusive_scan<std::uint32_t>(ctx, u, Op::Product);
    std::uint32_t pr = 1;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(prod[i], pr) << i;
      pr *= u[i];
    }
  }
}

// Documented order: NaN last in both directions, -0.0 == +0.0 (stable), exact bits kept.
bool before(float a, float b, SortOrder order) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return order == SortOrder::Ascending ? a < b : b < a;
}

std::vector<float> special_keys(std::size_t n) {
  auto k = random_floats(n, -4.0f, 4.0f);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            -0.0f,
                            0.0f,
                            1.0f};
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 5 == 0) k[i] = specials[(i / 5) % 7];
    if (i % 5 == 1) k[i] = std::round(k[i]);  // duplicates
  }
  return k;
}

TEST(Subgroups, SortArgsortPairs) {
  SUBGROUP_CONTEXT(ctx);
  for (std::size_t n : sizes) {
    for (SortOrder order : {SortOrder::Ascending, SortOrder::Descending}) {
      SCOPED_TRACE(testing::Message()
                   << "n=" << n << " order=" << static_cast<int>(order) << " seed=" << seed());
      const auto keys = special_keys(n);
      std::vector<std::uint32_t> want(n);
      std::iota(want.begin(), want.end(), 0u);
      std::stable_sort(want.begin(), want.end(), [&](std::uint32_t a, std::uint32_t b) {
        return before(keys[a], keys[b], order);
      });
      EXPECT_EQ(argsort<float>(ctx, keys, order), want);
      // sort_by_key on a range [2, n + 2) of larger Buffers: values follow, stably.
      std::vector<float> big(n + 4, 7.0f);
      std::copy(keys.begin(), keys.end(), big.begin() + 2);
      std::vector<std::uint32_t> ids(n + 4, 99u);
      std::iota(ids.begin() + 2, ids.end() - 2, 0u);
      Buffer kb = Buffer::from(ctx, big), vb = Buffer::from(ctx, ids);
      sort_by_key(ctx, kb, vb, order, {2, n});
      const auto gk = kb.to_vector<float>();
      const auto gv = vb.to_vector<std::uint32_t>();
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(gv[2 + i], want[i]) << i;
        ASSERT_TRUE(same_bits(gk[2 + i], keys[want[i]])) << i;
      }
      EXPECT_EQ(gk[0], 7.0f);
      EXPECT_EQ(gv[n + 3], 99u);
    }
    auto ints = random_ints(n, -50, 50);
    auto sorted = ints;
    std::sort(sorted.begin(), sorted.end());
    sort<std::int32_t>(ctx, ints);
    EXPECT_EQ(ints, sorted);
    auto u = random_uints(n, 0, 0xFFFFFFFFu);
    auto us = u;
    std::sort(us.begin(), us.end(), std::greater<>());
    sort<std::uint32_t>(ctx, u, SortOrder::Descending);
    EXPECT_EQ(u, us);
  }
}

// Onesweep's own tile shapes, within ES 3.1's minimums (128 invocations, 16 KiB): a group
// width that does not divide the 256 digits (the digit starts are scanned in slices of the
// group) and odd counts of keys per invocation; pairs keep their input order among equal
// keys. The shape is set, reported, and restored.
TEST(Subgroups, OnesweepTileShapes) {
  SUBGROUP_CONTEXT(ctx);
  const PrimitiveTuning before = primitive_tuning(ctx);
  for (auto [local, keys_per] : {std::pair{96, 9}, {128, 13}}) {
    PrimitiveTuning t = before;
    t.onesweep_local = local;
    t.onesweep_keys = keys_per;
    set_primitive_tuning(ctx, t);
    ASSERT_EQ(primitive_tuning(ctx).onesweep_local, local);
    ASSERT_EQ(primitive_tuning(ctx).onesweep_keys, keys_per);
    for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{40009}}) {
      SCOPED_TRACE(testing::Message()
                   << local << " x " << keys_per << " n=" << n << " seed=" << seed());
      const auto keys = random_uints(n, 0, 999);  // many equal keys: stability shows
      std::vector<std::uint32_t> want(n);
      std::iota(want.begin(), want.end(), 0u);
      std::stable_sort(want.begin(), want.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
      Buffer kb = Buffer::from(ctx, keys);
      Buffer ib = Buffer::from(ctx, std::vector<std::uint32_t>(n, 0xDEADBEEFu));
      argsort(ctx, kb, ib);  // the values made in the kernel
      EXPECT_EQ(ib.to_vector<std::uint32_t>(), want);
      std::vector<std::uint32_t> ids(n);
      std::iota(ids.begin(), ids.end(), 0u);
      Buffer vb = Buffer::from(ctx, ids);
      sort_by_key(ctx, kb, vb);  // the values read from a Buffer
      EXPECT_EQ(vb.to_vector<std::uint32_t>(), want);
      const auto sorted = kb.to_vector<std::uint32_t>();
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], keys[want[i]]) << i;
    }
  }
  set_primitive_tuning(ctx, before);
}

// A sort inside a caller's capture (Onesweep is on in this Context) is recorded as the ranked
// sort, whose dispatches replay: each replay sorts the keys uploaded before it. Where the
// ranked sort cannot be captured (its count scan takes a fresh look-back epoch per call, or
// scratch would be uploaded), the capture is refused with UnsupportedError. Never a recording
// whose replays read an earlier replay's state. A sort before the capture makes the kernels
// and scratch, as a program that captures its steady state would have.
TEST(Subgroups, SortInACaptureReplaysOrIsRefused) {
  SUBGROUP_CONTEXT(ctx);
  for (std::size_t n : {std::size_t{3000}, std::size_t{200003}}) {
    SCOPED_TRACE(testing::Message() << "n=" << n << " seed=" << seed());
    Buffer keys = Buffer::from(ctx, random_uints(n, 0, 0xFFFFFFFFu));
    sort(ctx, keys);
    Sequence s(ctx, "captured sort");
    try {
      s.capture([&] { sort(ctx, keys); });
    } catch (const UnsupportedError& e) {
      EXPECT_NE(std::string(e.what()).find("capture"), std::string::npos) << e.what();
      continue;
    }
    for (int replay = 0; replay < 3; ++replay) {
      auto host = random_uints(n, 0, 0xFFFFFFFFu);
      keys.upload(std::span<const std::uint32_t>(host));
      s.replay();
      std::sort(host.begin(), host.end());
      ASSERT_EQ(keys.to_vector<std::uint32_t>(), host) << "replay " << replay;
    }
  }
}

TEST(Subgroups, Histogram) {
  SUBGROUP_CONTEXT(ctx);
  for (std::size_t n : sizes) {
    SCOPED_TRACE(testing::Message() << "n=" << n << " seed=" << seed());
    auto x = random_floats(n, -0.25f, 1.25f);
    for (std::size_t i = 0; i < n; i += 11) x[i] = std::numeric_limits<float>::quiet_NaN();
    const auto h = histogram(ctx, std::span<const float>(x), 64, 0.0f, 1.0f);
    std::vector<std::uint32_t> want(64, 0);
    std::uint32_t below = 0, above = 0, nan = 0;
    const float scale = 64.0f / 1.0f;
    for (float v : x) {
      if (std::isnan(v))
        ++nan;
      else if (v < 0.0f)
        ++below;
      else if (v > 1.0f)
        ++above;
      else
        ++want[std::min<std::size_t>(static_cast<std::size_t>((v - 0.0f) * scale), 63)];
    }
    EXPECT_EQ(h.bins, want);
    EXPECT_EQ(h.below, below);
    EXPECT_EQ(h.above, above);
    EXPECT_EQ(h.nan, nan);
    // Skewed: every value in one bin, accumulated twice.
    const std::vector<std::uint32_t> same(n, 5u);
    const Buffer sb = Buffer::from(ctx, same);
    Buffer counts = poisoned<std::uint32_t>(ctx, 2 + 16 + 3);
    histogram_int(ctx, sb, counts, 16, 0, {{}, 2, false});
    histogram_int(ctx, sb, counts, 16, 0, {{}, 2, true});
    const auto c = counts.to_vector<std::uint32_t>();
    EXPECT_EQ(c[0], poison<std::uint32_t>());
    for (std::uint32_t b = 0; b < 19; ++b) {
      EXPECT_EQ(c[2 + b], b == 5 ? 2 * n : 0u) << b;
    }
  }
}

TEST(Subgroups, Compaction) {
  SUBGROUP_CONTEXT(ctx);
  for (std::size_t n : sizes) {
    SCOPED_TRACE(testing::Message() << "n=" << n << " seed=" << seed());
    const auto x = random_ints(3 * n, -20, 20);
    std::vector<std::int32_t> kept, rest;
    for (std::size_t e = 0; e < n; ++e) {
      auto& to = x[3 * e + 2] >= 0 ? kept : rest;
      to.insert(to.end(), x.begin() + 3 * static_cast<std::ptrdiff_t>(e),
                x.begin() + 3 * static_cast<std::ptrdiff_t>(e) + 3);
    }
    EXPECT_EQ(copy_if<std::int32_t>(ctx, x, "x.z >= 0", 3), kept);
    const Buffer in = Buffer::from(ctx, x);
    Buffer out = poisoned<std::int32_t>(ctx, 3 * n);
    EXPECT_EQ(partition(ctx, in, out, "x.z >= 0", {3, {}}), kept.size() / 3);
    auto both = kept;
    both.insert(both.end(), rest.begin(), rest.end());
    EXPECT_EQ(out.to_vector<std::int32_t>(), both);
    auto sorted = random_ints(n, 0, 30);
    std::sort(sorted.begin(), sorted.end());
    auto distinct = sorted;
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    EXPECT_EQ(unique<std::int32_t>(ctx, sorted), distinct);
    // A range that starts mid-Buffer: indices in the predicate are the Buffer's.
    const auto f = random_floats(n + 2);
    std::vector<float> odd_kept;
    for (std::size_t i = 2; i < n + 2; ++i) {
      if (i % 2 == 1) odd_kept.push_back(f[i]);
    }
    const Buffer fb = Buffer::from(ctx, f);
    Buffer fo = poisoned<float>(ctx, n);
    EXPECT_EQ(copy_if(ctx, fb, fo, "(i & 1u) == 1u", {1, {2, n}}), odd_kept.size());
    const auto fg = fo.to_vector<float>();
    for (std::size_t i = 0; i < odd_kept.size(); ++i) ASSERT_TRUE(same_bits(fg[i], odd_kept[i]));
  }
}

}  // namespace
}  // namespace gpgpu::test
