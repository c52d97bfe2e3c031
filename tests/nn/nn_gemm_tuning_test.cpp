// The tuning cache of gpgpu::nn's GEMMs (src/nn/compute/gemm_tuning.cpp): a tuned tiling is
// honoured by a later process (here: this one, after forgetting what it held), ignored when
// the driver string changes, found by a sibling shape (another batch size) but not by an
// unrelated one, not written with GPGPU_CACHE=off; the tuning budget bounds the candidates by
// the compile time measured on the device (kept on disk); candidates timed in steady rounds
// pick the fastest under a changing clock; a GEMM whose tiling is known takes it without
// tuning and computes correctly; without timer queries nothing is tuned; and a tiling tuned
// under a device-limit profile is kept apart from the device's own.
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cache_support.hpp"
#include "gemm.hpp"
#include "gemm_tuning.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/cache.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
namespace nn = gpgpu::nn;
using nn::detail::GemmIdentity;
using nn::detail::GemmShape;
using nn::detail::GemmTiling;

namespace {

using gpgpu::test::ScopedEnv;

// The shared Context is made before GPGPU_CACHE_DIR changes: a Context keeps the program
// cache folder it was made with, which must not be a test's temporary one.
struct ContextFirst {
  ContextFirst() { gpgpu::test::context(); }
};

// A fresh cache directory (GPGPU_CACHE_DIR) and a process that has tuned nothing yet.
struct FreshTuning : ContextFirst, gpgpu::test::TempDir {
  FreshTuning() : gpgpu::test::TempDir("gpgpu-nn-tuning", true) {
    nn::detail::forget_tunings_in_process();
  }
  ~FreshTuning() { nn::detail::forget_tunings_in_process(); }
};

GemmIdentity identity(GemmShape shape) {
  return {gpgpu::cache::device_key(gpgpu::test::context().info()), "test gemm code", "A=1 B=2",
          shape};
}

GemmTiling some_tiling() {
  GemmTiling t;
  t.bm = 32;
  t.bn = 64;
  t.bk = 8;
  t.tm = 4;
  t.tn = 4;
  t.split = 3;
  return t;
}

void expect_same(const std::optional<GemmTiling>& got, const GemmTiling& want) {
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->to_string(), want.to_string());
}

}  // namespace

TEST(NnGemmTuning, ATunedTilingIsHonouredByALaterProcess) {
  FreshTuning fresh;
  const auto id = identity({640, 16, 200});
  EXPECT_FALSE(nn::detail::tuned_tiling(id).has_value());
  nn::detail::remember_tiling(id, some_tiling());
  nn::detail::forget_tunings_in_process();
  expect_same(nn::detail::tuned_tiling(id), some_tiling());
}

TEST(NnGemmTuning, ATilingOfAnotherDriverIsIgnored) {
  FreshTuning fresh;
  const auto id = identity({640, 16, 200});
  nn::detail::remember_tiling(id, some_tiling());
  nn::detail::forget_tunings_in_process();
  auto updated = id;
  updated.device += "driver updated\n";
  EXPECT_FALSE(nn::detail::tuned_tiling(updated).has_value());
  EXPECT_FALSE(nn::detail::sibling_tiling(updated).has_value());
  expect_same(nn::detail::tuned_tiling(id), some_tiling());  // the old driver's entry is intact
}

TEST(NnGemmTuning, ASiblingShapeFindsTheTilingAnUnrelatedOneDoesNot) {
  FreshTuning fresh;
  nn::detail::remember_tiling(identity({640, 16, 200}), some_tiling());
  nn::detail::forget_tunings_in_process();
  expect_same(nn::detail::sibling_tiling(identity({16000, 16, 200})), some_tiling());  // m
  expect_same(nn::detail::sibling_tiling(identity({640, 16, 5000})), some_tiling());   // k
  EXPECT_FALSE(nn::detail::tuned_tiling(identity({16000, 16, 200})).has_value());
  EXPECT_FALSE(nn::detail::sibling_tiling(identity({16000, 32, 200})).has_value());
  auto other_code = identity({16000, 16, 200});
  other_code.code = "another gemm";
  EXPECT_FALSE(nn::detail::sibling_tiling(other_code).has_value());
}

TEST(NnGemmTuning, TurnedOffNothingIsWrittenOrReadFromDisk) {
  FreshTuning fresh;
  ScopedEnv off("GPGPU_CACHE", "off");
  const auto id = identity({640, 16, 200});
  nn::detail::remember_tiling(id, some_tiling());
  expect_same(nn::detail::tuned_tiling(id), some_tiling());  // this process still knows it
  nn::detail::forget_tunings_in_process();
  EXPECT_FALSE(nn::detail::tuned_tiling(id).has_value());
  EXPECT_FALSE(fs::exists(fresh.path()));
}

// How many candidates a tuning tries follows from the compile time measured on the device
// (kept for later processes, per device), the programs each candidate compiles and what is
// left of the budget; fewer than two that fit is no tuning.
TEST(NnGemmTuning, TheBudgetBoundsTheCandidatesByTheMeasuredCompileTime) {
  FreshTuning fresh;
  const std::string device = identity({1, 1, 1}).device;
  const std::vector<std::size_t> programs{1, 2, 1, 1, 2, 1, 1, 2};
  const auto fit = [&](double budget, const std::string& on = "") {
    return nn::detail::candidates_within_budget(on.empty() ? device : on, budget, programs);
  };
  // Nothing measured yet: 0.25 s a program assumed, plus 0.02 s of timing a candidate;
  // cumulative 0.27 0.79 1.06 1.33 1.85 s...
  EXPECT_EQ(fit(1.0), 2u);
  EXPECT_EQ(fit(0.5), 0u);  // only one candidate fits
  EXPECT_EQ(fit(1.1), 3u);
  // A tuning of 0.5 s compiled 10 programs in 0.4 s: 0.04 s each, 0.06 s a one-program
  // candidate; 0.55 s left: cumulative 0.06 0.16 0.22 0.28 0.38 0.44 0.50 0.60.
  nn::detail::spend_tuning_time(device, 0.5, 10, 0.4);
  EXPECT_EQ(fit(1.05), 7u);
  EXPECT_EQ(fit(std::numeric_limits<double>::infinity()), 8u);
  EXPECT_EQ(fit(1.0, "another device"), 0u);  // its own assumed 0.25 s: 0.27, 0.79 > 0.5
  EXPECT_EQ(fit(1.3, "another device"), 2u);  // 0.8 s left
  // A later process starts with the whole budget and the measured compile time.
  nn::detail::forget_tunings_in_process();
  EXPECT_EQ(fit(0.65), 8u);
  nn::detail::spend_tuning_time(device, 0.55);  // nothing compiled: the estimate stays
  EXPECT_EQ(fit(0.65), 0u);                     // 0.10 s left: one candidate
  EXPECT_EQ(fit(0.75), 2u);                     // 0.20 s left
}

// A GPU that clocks up while the candidates are timed (it idled while they compiled). Each
// run takes its candidate's cost times the clock's factor; candidate 0 is the fastest.
// - A ramp (the factor falls from 4 to 1 over the first 12 runs): timed one after the other
//   (four runs each, as before), the last candidates look fastest.
// - A step (2 until run 37, then 1): in plain rounds (no check), the step falls inside the
//   fifth round and the candidates after it look fastest.
// time_in_rounds leaves out the rounds that met a change and picks candidate 0 in both, with
// each candidate's fastest round equal to its cost; negative readings are no readings.
TEST(NnGemmTuning, CandidatesTimedInSteadyRoundsSurviveAChangeOfClock) {
  const std::vector<double> cost{1.00, 1.30, 1.25, 1.20, 1.15, 1.10, 1.05, 1.02};
  const std::size_t last = cost.size() - 1;
  int calls = 0;
  std::function<double()> clock;
  const auto time = [&](std::size_t i) { return cost[i] * clock(); };
  const auto ramp = [&] { return 1 + 3 * std::max(0.0, 1 - calls++ / 12.0); };
  const auto step = [&] { return calls++ < 37 ? 2.0 : 1.0; };
  const auto check = [&](const char* name) {
    SCOPED_TRACE(name);
    calls = 0;
    const auto timings = nn::detail::time_in_rounds(cost.size(), 5, time);
    EXPECT_EQ(nn::detail::fastest_candidate(timings), 0u);
    for (std::size_t i = 0; i < cost.size(); ++i) {
      EXPECT_DOUBLE_EQ(nn::detail::fastest_round(timings[i]), cost[i]) << i;
    }
  };
  clock = ramp;
  std::vector<std::vector<double>> one_after_another(cost.size());
  for (std::size_t i = 0; i < cost.size(); ++i) {
    for (int r = 0; r < 4; ++r) one_after_another[i].push_back(time(i));
  }
  ASSERT_EQ(nn::detail::fastest_candidate(one_after_another), last) << "the ramp fools nothing";
  check("ramp");
  clock = step;
  calls = 0;
  std::vector<std::vector<double>> plain_rounds(cost.size());
  for (int r = 0; r < 5; ++r) {
    for (std::size_t i = 0; i < cost.size(); ++i) plain_rounds[i].push_back(time(i));
  }
  ASSERT_EQ(nn::detail::fastest_candidate(plain_rounds), last) << "the step fools nothing";
  check("step");
  // Every round unsteady (each round's closing run, every third, at another clock): all
  // rounds count.
  clock = [&] { return calls++ % 3 == 2 ? 1.5 : 1.0; };
  calls = 0;
  const auto alternating = nn::detail::time_in_rounds(2, 3, time);
  EXPECT_EQ(alternating[0].size(), 9u);  // 3 x 3 rounds, none steady
  // A candidate without readings never wins; none with readings: no choice.
  EXPECT_EQ(nn::detail::fastest_candidate({{-1, -1}, {3, 2}, {-1, 2.5}}), 1u);
  EXPECT_FALSE(nn::detail::fastest_candidate({{-1}, {-1}}).has_value());
  EXPECT_FALSE(nn::detail::fastest_candidate({}).has_value());
}

// C (M x N) = A (M x K) B (K x N), row-major, through the GEMM's snippets.
class SmallGemm {
 public:
  static constexpr int m = 70, n = 24, k = 50;
  std::vector<float> a = gpgpu::test::random_floats(m * k), b = gpgpu::test::random_floats(k * n);

  // Runs a new Gemm (autotuned on its first run if nothing is known); checks every element
  // against float64: a sum of k products, each rounded once, summed in any order, errs by
  // at most (k + 1) eps32 sum |a b|. Returns the tiling it ran with.
  GemmTiling run(const nn::BackendOptions& options,
                 const gpgpu::Context& ctx = gpgpu::test::context()) const {
    nn::detail::GemmSource source;
    source.operands = R"(
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
float load_a(int i, int j) { return a[i * 50 + j]; }
float load_b(int j, int l) { return b[j * 24 + l]; }
)";
    source.result = R"(
layout(std430, binding = 2) writeonly buffer C { float c[]; };
void store_c(int i, int l, float v) { c[i * 24 + l] = v; }
)";
    source.a_k_fast = true;
    nn::detail::Gemm gemm(ctx, {m, n, k}, source, options, "tuning test gemm");
    const auto da = gpgpu::Buffer::from(ctx, a), db = gpgpu::Buffer::from(ctx, b);
    std::vector<float> c(m * n, gpgpu::test::poison_float());
    gpgpu::Buffer dc = gpgpu::Buffer::from(ctx, c);
    gemm.run({{"a", da}, {"b", db}}, {{"c", dc}});
    dc.download(std::span<float>(c));
    for (int i = 0; i < m; ++i) {
      for (int l = 0; l < n; ++l) {
        double exact = 0, magnitude = 0;
        for (int j = 0; j < k; ++j) {
          const double p = static_cast<double>(a[i * k + j]) * b[j * n + l];
          exact += p;
          magnitude += std::abs(p);
        }
        EXPECT_NEAR(c[i * n + l], exact, (k + 1) * gpgpu::test::eps32 * magnitude) << i << "," << l;
      }
    }
    return gemm.tiling();
  }
};

TEST(NnGemmTuning, AGemmTunedByOneProcessIsNotTunedByTheNext) {
  SCOPED_TRACE("seed " + std::to_string(gpgpu::test::seed()));
  auto& ctx = gpgpu::test::context();
  FreshTuning fresh;
  const nn::BackendOptions tuned{.kernels = nn::BackendOptions::Kernels::SharedMemory,
                                 .autotune = true,
                                 .autotune_seconds = std::numeric_limits<double>::infinity()};
  const SmallGemm work;
  const auto made = [](const gpgpu::ProgramCounts& c) { return c.compiled + c.restored; };
  const auto heuristic = [&] {
    return nn::detail::candidate_tilings(ctx.info(), {SmallGemm::m, SmallGemm::n, SmallGemm::k},
                                         true)
        .front()
        .to_string();
  };
  if (!ctx.info().has_timer_query()) {
    // Without GL_EXT_disjoint_timer_query (the es31-minimum and rpi5-v3d profiles) nothing
    // can be timed: autotuning is off, the GEMM builds only the cost model's choice.
    const auto before_untimed = made(ctx.program_counts());
    EXPECT_EQ(work.run(tuned).to_string(), heuristic());
    EXPECT_LE(made(ctx.program_counts()) - before_untimed, 2u);
    return;
  }
  const auto before = ctx.program_counts();
  const GemmTiling first = work.run(tuned);
  const auto after_tuning = ctx.program_counts();
  EXPECT_GT(made(after_tuning) - made(before), 2u);  // candidates were built
  nn::detail::forget_tunings_in_process();
  ctx.clear_program_cache();
  const GemmTiling second = work.run(tuned);
  EXPECT_EQ(second.to_string(), first.to_string());
  EXPECT_LE(made(ctx.program_counts()) - made(after_tuning), 2u);  // only its own kernels
  // With the budget spent, a GEMM nothing is known about runs the cost model's choice.
  nn::detail::forget_tunings_in_process();
  ScopedEnv off("GPGPU_CACHE", "off");
  nn::detail::spend_tuning_time(gpgpu::cache::device_key(ctx.info()), 10);
  nn::BackendOptions budgeted = tuned;
  budgeted.autotune_seconds = 1;
  const auto before_untuned = made(ctx.program_counts());
  const GemmTiling untuned = work.run(budgeted);
  EXPECT_LE(made(ctx.program_counts()) - before_untuned, 2u);  // no candidates built
  EXPECT_EQ(untuned.to_string(), heuristic());
}

// A tiling tuned under a device-limit profile is the profile's: the device without it tunes
// its own (its candidates are more), and the profile's is honoured under the profile again.
TEST(NnGemmTuning, ATilingTunedUnderAProfileIsKeptApart) {
  gpgpu::Context device({.limits = "device"});
  if (!device.info().has_timer_query()) {
    GTEST_SKIP() << "autotuning needs GL_EXT_disjoint_timer_query, which this driver lacks";
  }
  FreshTuning fresh;
  gpgpu::Context mali({.limits = "mali-g610-panfrost"});  // has timer queries
  const nn::BackendOptions tuned{.kernels = nn::BackendOptions::Kernels::SharedMemory,
                                 .autotune = true,
                                 .autotune_seconds = std::numeric_limits<double>::infinity()};
  const SmallGemm work;
  const auto made = [](const gpgpu::Context& c) {
    return c.program_counts().compiled + c.program_counts().restored;
  };
  work.run(tuned, mali);
  EXPECT_GT(made(mali), 2u) << "the profile's candidates were built";
  work.run(tuned, device);
  EXPECT_GT(made(device), 2u) << "the device tunes its own, not the profile's tiling";
  nn::detail::forget_tunings_in_process();
  mali.clear_program_cache();
  const auto before = made(mali);
  work.run(tuned, mali);
  EXPECT_LE(made(mali) - before, 2u) << "the profile's tiling, from the disk cache";
}

// A convolution's GEMMs (loads that compute im2col or col2im addresses) put the tilings with
// 4-row register blocks first, the others after them in the cost model's order; the same
// candidates but those wider than n (32 here). (The cost model alone puts an 8-row block first for
// this shape, the input gradient of a 5x5 convolution of 32 into 64 channels at a batch of 512.)
TEST(NnGemmTuning, ComputedLoadsPutFourRowBlocksFirst) {
  auto& ctx = gpgpu::test::context();
  const nn::detail::GemmShape shape{100352, 32, 1600};
  const auto plain = nn::detail::candidate_tilings(ctx.info(), shape, true);
  const auto conv = nn::detail::candidate_tilings(ctx.info(), shape, true, true);
  ASSERT_FALSE(plain.empty());
  EXPECT_NE(plain.front().tm, 4) << "the shape no longer tells the orders apart";
  auto names = [](const std::vector<GemmTiling>& list) {
    std::vector<std::string> out;
    for (const auto& t : list) out.push_back(t.to_string());
    return out;
  };
  auto sorted = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  std::vector<GemmTiling> narrow;
  for (const auto& t : plain) {
    if (t.bn <= 32) narrow.push_back(t);
  }
  ASSERT_LT(narrow.size(), plain.size()) << "the shape no longer has blocks wider than n";
  EXPECT_EQ(sorted(names(conv)), sorted(names(narrow)));
  bool four = true;
  std::vector<std::string> rest;
  for (const auto& t : conv) {
    if (t.tm != 4) four = false;
    EXPECT_TRUE(t.tm != 4 || four) << t.to_string() << " after an 8-row block";
    if (t.tm != 4) rest.push_back(t.to_string());
  }
  EXPECT_EQ(conv.front().tm, 4);
  std::vector<std::string> plain_rest;
  for (const auto& t : narrow) {
    if (t.tm != 4) plain_rest.push_back(t.to_string());
  }
  EXPECT_EQ(rest, plain_rest) << "the 8-row blocks keep the cost model's order";
  // A weight gradient of a first layer with few filters (m = 3 x 3 + 1), whose every block is
  // wider than n, keeps the wide ones rather than none.
  for (const int filters : {1, 2, 4}) {
    const nn::detail::GemmShape few{10, filters, 6272};
    EXPECT_EQ(nn::detail::candidate_tilings(ctx.info(), few, true, true).size(),
              nn::detail::candidate_tilings(ctx.info(), few, true).size())
        << filters << " filters";
  }
}
