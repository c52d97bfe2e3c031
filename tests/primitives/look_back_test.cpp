// The subgroup look-back's self-validating words (look_back_glsl), from inside the library:
//  * its reader alone, in a one-subgroup kernel, on words the test writes: every predecessor
//    state a reader can meet (an inclusive prefix, an aggregate, half of either written by
//    this call, words of other calls), each with its exact expected prefix, so a reader that
//    takes a value on one tagged half, or a stale word, gives a wrong sum (on llvmpipe a
//    scan's tiles publish nearly in order, so whole scans seldom meet those states);
//  * the packed words' epochs across their 16-bit wrap (started near it through
//    Registry::set_count), on direct, recorded, replayed and stale recordings' scans (each
//    call takes one epoch, whatever its recording's state): every element checked,
//    every tile's inclusive-prefix words carrying the call's own epoch (never 0) and the
//    tile's prefix, and the words zeroed when the epochs start again.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "ops/primitives/look_back_glsl.hpp"
#include "ops/primitives/primitive_registry.hpp"
#include "ops/primitives/primitive_tuning.hpp"
#include "ops/primitives/scan_plan.hpp"
#include "ops/primitives/subgroup_glsl.hpp"
#include "primitives_test_support.hpp"

namespace gpgpu::test {
namespace {

// A Context on the subgroup kernels, or null (with the refusal) where it has none.
std::unique_ptr<Context> subgroup_context(std::string& why) {
  auto ctx = std::make_unique<Context>();
  PrimitiveTuning t;
  t.subgroups = 1;
  try {
    set_primitive_tuning(*ctx, t);
  } catch (const ArgumentError& e) {
    why = e.what();
    return nullptr;
  }
  return ctx;
}

// lb_exclusive_prefix(tile) of one subgroup over uint sums; a tile's fallback aggregate is
// fallback_values[tile].
std::string reader_source(const primitives::Subgroups& sg) {
  return primitives::subgroup_glsl(sg, sg.size) +
         primitives::subgroup_op_glsl(sg, ElementType::Uint32, Op::Sum, "sgsum") + R"(
layout(local_size_x = L) in;
layout(std430, binding = 0) coherent volatile buffer TileWords { uint tile_words[]; };
layout(std430, binding = 1) readonly buffer Fallback { uint fallback_values[]; };
layout(std430, binding = 2) writeonly buffer Result { uint result[]; };
uniform uint epoch;
uniform uint spin_limit;
uniform uint tile;
#define LB_T uint
#define LB_IDENT 0u
#define LB_BITS(x) (x)
#define LB_FROM_BITS(u) (u)
uint lb_op(uint a, uint b) { return a + b; }
uint lb_reduce(uint x) { return sgsum_reduce(x); }
uint lb_fallback(uint t) { return fallback_values[t]; }
)" + primitives::look_back_glsl +
         R"(
void main() {
  uint p = lb_exclusive_prefix(tile);
  if (sg_lane() == 0u) result[0] = p;
}
)";
}

std::uint32_t word(std::uint32_t half, std::uint32_t tag) {
  return (half << 16) | tag;
}

// States of a predecessor's words [aggregate lo, hi, prefix lo, hi] and what a reader takes.
enum class State { Prefix, Aggregate, PrefixHalfLo, PrefixHalfHi, AggregateHalf, Stale, Zero };
constexpr int state_count = 7;

TEST(LookBack, ReaderTakesOnlyWholeWordPairsOfThisEpoch) {
  std::string why;
  auto ctx = subgroup_context(why);
  if (!ctx) GTEST_SKIP() << "no subgroups: " << why;
  const primitives::Subgroups sg = primitives::subgroups(*ctx);
  ComputeKernel k(*ctx, reader_source(sg));
  const std::size_t tiles = 3 * static_cast<std::size_t>(sg.size) + 5;  // several windows
  Buffer words(*ctx, ElementType::Uint32, 1 + 4 * tiles);
  Buffer fallback(*ctx, ElementType::Uint32, tiles);
  Buffer result(*ctx, ElementType::Uint32, 1);
  for (int trial = 0; trial < 40; ++trial) {
    SCOPED_TRACE(testing::Message() << "trial " << trial << " seed " << seed());
    const std::uint32_t epoch = random_uints(1, 2, 65534)[0];
    const auto aggregate = random_uints(tiles, 0, 0xffffffffu);
    const auto prefix = random_uints(tiles, 0, 0xffffffffu);
    const auto own = random_uints(tiles, 0, 0xffffffffu);
    const auto other = random_uints(4 * tiles, 0, 0xffffu);  // halves of other values
    const auto states = random_uints(tiles, 0, state_count - 1);
    std::vector<std::uint32_t> w(1 + 4 * tiles, 0);
    for (std::size_t t = 0; t < tiles; ++t) {
      std::uint32_t* tw = &w[1 + 4 * t];
      const std::uint32_t stale = (trial % 2 == 0) ? epoch - 1 : epoch + 1;
      for (int j = 0; j < 4; ++j) tw[j] = word(other[4 * t + j], stale);
      const auto put = [&](int j, std::uint32_t v) {
        tw[j] = word(v & 0xffffu, epoch);
        tw[j + 1] = word(v >> 16, epoch);
      };
      switch (static_cast<State>(states[t])) {
        case State::Prefix:
          put(0, aggregate[t]);
          put(2, prefix[t]);
          break;
        case State::Aggregate:
          put(0, aggregate[t]);
          break;
        case State::PrefixHalfLo:  // the prefix's low half written, the high one not yet
          put(0, aggregate[t]);
          tw[2] = word(prefix[t] & 0xffffu, epoch);
          break;
        case State::PrefixHalfHi:  // no aggregate yet: not ready
          tw[3] = word(prefix[t] >> 16, epoch);
          break;
        case State::AggregateHalf:
          tw[0] = word(aggregate[t] & 0xffffu, epoch);
          break;
        case State::Stale:
          break;
        case State::Zero:
          for (int j = 0; j < 4; ++j) tw[j] = 0;
          break;
      }
    }
    words.upload(w);
    fallback.upload(own);
    for (const std::size_t tile : {tiles, tiles / 2, std::size_t{1}}) {
      // The expected prefix: back from tile - 1 to the first inclusive prefix; a tile that is
      // not ready is reduced from its input (spin_limit 1: at once; its words stay as read).
      std::uint32_t want = 0;
      for (std::size_t t = tile; t-- > 0;) {
        const auto s = static_cast<State>(states[t]);
        if (s == State::Prefix) {
          want += prefix[t];
          break;
        }
        want += (s == State::Aggregate || s == State::PrefixHalfLo) ? aggregate[t] : own[t];
      }
      result.upload(std::vector<std::uint32_t>{poison_uint});
      k.run_groups({{"tile_words", words},
                    {"fallback_values", fallback},
                    {"result", result},
                    {"epoch", epoch},
                    {"spin_limit", 1u},
                    {"tile", static_cast<std::uint32_t>(tile)}},
                   {1, 1, 1});
      ASSERT_EQ(result.to_vector<std::uint32_t>()[0], want) << "tile " << tile;
    }
  }
}

// Scans of n elements through the same Buffers (so the Registry records the call, then
// replays it), starting with the packed epochs' counter at `last`; each call's words checked.
// A scan of 2n first leaves words of more tiles than these calls write, which the wrap zeroes.
constexpr std::size_t wrap_n = 100003;

primitives::ScanPlan wrap_plan(const Context& ctx) {
  return primitives::plan_scan(ctx.info(), primitives::effective_tuning(ctx), ElementType::Uint32,
                               1, Op::Sum, ScanAlgorithm::Auto, wrap_n);
}

// Replaces the look-back words by a larger Buffer (a scan of more tiles than they hold on
// Buffers of its own), so a recording that bound them is stale. The counter starts again.
void grow_words(Context& ctx, std::size_t tile) {
  auto& reg = primitives::registry(ctx);
  const std::size_t held = reg.scratch(ctx, "scan.tile_words", ElementType::Uint32, 1).size();
  const auto x = random_uints(((held - 1) / 4 + 1) * tile, 0, 1000);
  const auto sums = inclusive_scan<std::uint32_t>(ctx, x);
  ASSERT_EQ(sums.back(), std::accumulate(x.begin(), x.end(), 0u));
  ASSERT_GT(reg.scratch(ctx, "scan.tile_words", ElementType::Uint32, 1).size(), held);
}

// With stale_at >= 2, the calls start far from the wrap (so call 1's recording is made: one
// that wraps is refused, its upload of zeros cannot be recorded, and the call runs as it
// is), and call stale_at meets that recording stale (grow_words) with the counter at `last`:
// it records again and its words carry the next epoch (one per call, none taken for a
// replay that does not happen).
void scan_across_wrap(Context& ctx, std::uint32_t last, int calls, int stale_at = -1) {
  const std::size_t n = wrap_n;
  const primitives::ScanPlan p = wrap_plan(ctx);
  const auto tile = static_cast<std::size_t>(p.sg_local * p.vec4s * 4);
  const std::size_t tiles = (n + tile - 1) / tile;
  ASSERT_GT(tiles, 2u);
  Buffer in(ctx, ElementType::Uint32, n), out(ctx, ElementType::Uint32, n);
  auto& reg = primitives::registry(ctx);
  {
    const auto warm = random_uints(2 * n, 0, 1000);
    const auto sums = inclusive_scan<std::uint32_t>(ctx, warm);
    ASSERT_EQ(sums.back(), std::accumulate(warm.begin(), warm.end(), 0u));
  }
  const std::uint32_t start = stale_at < 0 ? last : 100;
  std::uint32_t epoch = start;
  for (int call = 0; call < calls; ++call) {
    SCOPED_TRACE(testing::Message() << "call " << call << " seed " << seed());
    const auto x = random_uints(n, 0, 0xffffffffu);
    in.upload(x);
    out.upload(std::vector<std::uint32_t>(n, poison_uint));
    if (call == stale_at) {
      ASSERT_NO_FATAL_FAILURE(grow_words(ctx, tile));
      epoch = last;
    }
    // The words were allocated by the warm-up (or grow_words).
    if (call == 0) reg.set_count("scan.word_epoch", start);
    if (call == stale_at) reg.set_count("scan.word_epoch", last);
    inclusive_scan(ctx, in, out, Op::Sum);
    epoch = epoch + 1 < (1u << 16) ? epoch + 1 : 1;
    const auto got = out.to_vector<std::uint32_t>();
    std::uint32_t run = 0;
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], run += x[i]) << "element " << i;
    // scratch() hands back the words Buffer as it is (at least one element).
    const auto w =
        reg.scratch(ctx, "scan.tile_words", ElementType::Uint32, 1).to_vector<std::uint32_t>();
    ASSERT_GE(w.size(), 1 + 4 * tiles);
    EXPECT_EQ(w[0], 0u) << "the tile counter is left at zero";
    for (std::size_t t = 0; t < tiles; ++t) {
      const std::uint32_t lo = w[1 + 4 * t + 2], hi = w[1 + 4 * t + 3];
      ASSERT_EQ(lo & 0xffffu, epoch) << "tile " << t;
      ASSERT_EQ(hi & 0xffffu, epoch) << "tile " << t;
      ASSERT_EQ((lo >> 16) | (hi & 0xffff0000u), got[std::min(n, (t + 1) * tile) - 1])
          << "tile " << t;
    }
    if (epoch == 1) {  // just wrapped: every other word was zeroed
      for (std::size_t i = 1 + 4 * tiles; i < w.size(); ++i) ASSERT_EQ(w[i], 0u) << i;
    }
  }
}

TEST(LookBack, PackedEpochsWrapBeforeSixteenBits) {
  std::string why;
  auto ctx = subgroup_context(why);
  if (!ctx) GTEST_SKIP() << "no subgroups: " << why;
  if (wrap_plan(*ctx).path != primitives::ScanPath::Subgroup) {
    // Five storage blocks or bindings: more than GL ES 3.1's minimum of four (es31-minimum).
    GTEST_SKIP() << "the subgroup scan does not fit this device's storage blocks";
  }
  // First call direct, second recorded, the rest replayed: the wrap on a replay.
  {
    SCOPED_TRACE("wrap on a replay");
    scan_across_wrap(*ctx, 65532, 6);
  }
  // The same again on fresh Buffers (a new recording): the wrap while recording. Where the
  // driver hands the destroyed Buffers' GL names to the new ones at once (NVIDIA's; Mesa's
  // with force_gl_names_reuse=true), the first call meets the recording above, stale.
  {
    SCOPED_TRACE("wrap while recording");
    scan_across_wrap(*ctx, 65534, 4);
  }
  // A recording made stale by grown words (on drivers that do not hand the freed name of the
  // words straight back to their successor): recorded again, then the wrap on its replay.
  {
    SCOPED_TRACE("a stale recording");
    scan_across_wrap(*ctx, 65534, 4, 2);
  }
}

}  // namespace
}  // namespace gpgpu::test
