// The GPU shallow-water model: tendencies and steps against the float64 reference, the
// steady state of case 2, exact mass conservation of case 1, short runs of cases 5 and 6,
// the global sums, and bad input.
#include <cmath>
#include <map>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "earth_test_fields.hpp"
#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/diagnostics.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/earth/model.hpp"
#include "gpgpu/earth/operators.hpp"
#include "gpgpu/earth/reference.hpp"
#include "gpgpu/earth/team.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "gpgpu/timeline.hpp"
#include "test_support.hpp"

namespace ge = gpgpu::earth;
using gpgpu::test::eps32;

namespace {

using gpgpu::earth::test::grid_at;
using gpgpu::earth::test::perturbed;
using gpgpu::earth::test::three_steps_disagreement;

// Per cell, the sum of the magnitudes of the terms the height tendency adds up:
// (1/(a A)) sum_k l_k max|h u| over the corners. Float32 rounding of each term (corner
// mean: 3 operations, projection 5, product and dot product 4) is at most ~12 eps32 of it.
std::vector<double> flux_scale(const ge::Grid& g, const ge::Fields& f, double radius) {
  double hu = 0;
  for (std::size_t i = 0; i < g.cell_count(); ++i)
    hu = std::max(hu, std::abs(f.height[i]) * ge::norm(f.velocity[i]));
  std::vector<double> s(g.cell_count());
  for (std::size_t i = 0; i < s.size(); ++i) {
    double perimeter = 0;
    for (int k = 0; k < g.degree[i]; ++k) perimeter += g.edge_lengths[i][k];
    s[i] = perimeter * hu / (radius * g.areas[i]);
  }
  return s;
}

// Per cell, the sum of the magnitudes of the flux terms its height tendency adds up, from
// the cell and its neighbours (every corner mixes the cell with two of them):
// (1/(a A_i)) sum_k l_k max |h u| over those cells.
std::vector<double> local_flux_scale(const ge::Grid& g, const ge::Fields& f, double radius) {
  std::vector<double> s(g.cell_count());
  for (std::size_t i = 0; i < s.size(); ++i) {
    double hu = std::abs(f.height[i]) * ge::norm(f.velocity[i]), perimeter = 0;
    for (int k = 0; k < g.degree[i]; ++k) {
      const auto j = static_cast<std::size_t>(g.neighbours[i][k]);
      hu = std::max(hu, std::abs(f.height[j]) * ge::norm(f.velocity[j]));
      perimeter += g.edge_lengths[i][k];
    }
    s[i] = perimeter * hu / (radius * g.areas[i]);
  }
  return s;
}

class ModelVersusReference : public testing::TestWithParam<int> {};

TEST_P(ModelVersusReference, RawTendencyMatchesTheFloat64Reference) {
  const int number = GetParam();
  const auto& g = grid_at(4);
  const auto setup = ge::make_case(number);
  ge::ModelOptions plain;
  plain.continuity_correction = 0;  // raw_tendency() is before the correction
  ge::Model model(gpgpu::test::context(), g, setup, plain);
  ge::ReferenceModel reference(g, setup, plain);
  const ge::Fields f = perturbed(g, setup);
  model.set_fields(f);
  reference.fields() = f;
  std::vector<double> dh;
  std::vector<ge::Vec3> du;
  reference.tendency(f.height, f.velocity, dh, du);
  const auto got = model.raw_tendency();
  const auto scale = flux_scale(g, f, setup.planet.radius);
  double du_scale = 0;
  for (const auto& v : du) du_scale = std::max(du_scale, ge::norm(v));
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    // 12 eps32 per term (see flux_scale), doubled for the float32 geometry (positions and
    // normals rounded once, ~eps32 each, entering every term).
    ASSERT_NEAR(got.height[i], dh[i], 24 * eps32 * scale[i]) << "cell " << i;
    if (setup.advection_only) {
      ASSERT_EQ(ge::norm(got.velocity[i]), 0.0);
    } else {
      // The momentum tendency balances terms of similar size (Coriolis, pressure gradient);
      // bound its error by 1e-4 of the largest tendency: ~100 eps32 for the pressure
      // gradient's cancellation of g h' over six edges.
      ASSERT_LE(ge::norm(got.velocity[i] - du[i]), 1e-4 * du_scale) << "cell " << i;
    }
  }
}

TEST_P(ModelVersusReference, StepsMatchTheFloat64Reference) {
  const int number = GetParam();
  const auto& g = grid_at(3);
  const auto setup = ge::make_case(number);
  ge::ModelOptions o;
  o.diffusion_time = number >= 5 ? 6 * 3600.0 : 0;  // exercise the hyperdiffusion kernels too
  ge::Model model(gpgpu::test::context(), g, setup, o);
  ge::ReferenceModel reference(g, setup, o);
  ASSERT_EQ(model.time_step(), reference.max_time_step());
  const int steps = 4;
  model.step(steps);
  for (int s = 0; s < steps; ++s) reference.step(model.time_step());
  const auto got = model.fields();
  const auto& want = reference.fields();
  double hmax = 0;
  for (double h : want.height) hmax = std::max(hmax, std::abs(h));
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    // Storing h - mean in float32 rounds it by eps32 |h - mean| each stage; the float32
    // tendencies err by ~1e-6 relative (above) over dt. Four steps of a flow whose height
    // changes by O(1-100 m) per step stay within 2e-5 of the largest height (measured 1e-6).
    ASSERT_NEAR(got.height[i], want.height[i], 2e-5 * hmax) << "cell " << i;
    ASSERT_LE(ge::norm(got.velocity[i] - want.velocity[i]), 2e-4 * (1 + ge::norm(want.velocity[i])))
        << "cell " << i;
  }
  EXPECT_DOUBLE_EQ(model.time(), steps * model.time_step());
}

TEST_P(ModelVersusReference, KernelVariantsAgree) {
  // Work-group size and the order of the neighbour gathers change only the schedule: the
  // same operations on the same values (llvmpipe gives the same bits; a compiler may fuse
  // multiply-adds differently per variant, so allow float32 rounding of the terms).
  const int number = GetParam();
  const auto& g = grid_at(3);
  const auto setup = ge::make_case(number);
  const ge::Fields f = perturbed(g, setup);
  ge::ModelOptions a, b;
  a.one_dispatch_steps = b.one_dispatch_steps = ge::ModelOptions::OneDispatch::Off;
  b.work_group_size = 64;
  b.preload_neighbours = true;
  ge::Model ma(gpgpu::test::context(), g, setup, a), mb(gpgpu::test::context(), g, setup, b);
  ma.set_fields(f);
  mb.set_fields(f);
  const auto ta = ma.raw_tendency(), tb = mb.raw_tendency();
  const auto scale = local_flux_scale(g, f, setup.planet.radius);
  double du_scale = 0;
  for (const auto& v : ta.velocity) du_scale = std::max(du_scale, ge::norm(v));
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    ASSERT_NEAR(ta.height[i], tb.height[i], 24 * eps32 * scale[i]) << "cell " << i;
    ASSERT_LE(ge::norm(ta.velocity[i] - tb.velocity[i]), 1e-5 * du_scale) << "cell " << i;
  }
  ma.step(2);
  mb.step(2);
  const auto ha = ma.fields().height, hb = mb.fields().height;
  for (std::size_t i = 0; i < g.cell_count(); ++i)
    ASSERT_NEAR(ha[i], hb[i], 1e-6 * std::abs(ha[i]) + 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Cases, ModelVersusReference, testing::Values(1, 2, 5, 6));

TEST(Model, ReplayedStepsGiveTheBitsOfStepsRunOneByOne) {
  // ModelOptions::replay_steps records each kind of step once (a gpgpu::Sequence: the state
  // Buffer, the rings it holds and the time step decide its dispatches) and replays it: the
  // same dispatches, so the same bits as running every kernel. Case 6 with hyperdiffusion
  // runs all four kernels; odd and even steps trade the state Buffers, and a change of the
  // time step records again.
  const auto& g = grid_at(3);
  const auto setup = ge::make_case(6);
  ge::ModelOptions replayed, direct;
  replayed.diffusion_time = direct.diffusion_time = 6 * 3600.0;
  direct.replay_steps = false;
  ge::Model a(gpgpu::test::context(), g, setup, replayed), b(gpgpu::test::context(), g, setup, direct);
  const ge::Fields f = perturbed(g, setup);
  a.set_fields(f);
  b.set_fields(f);
  const auto expect_same = [&](const char* when) {
    const auto fa = a.fields(), fb = b.fields();
    for (std::size_t i = 0; i < g.cell_count(); ++i) {
      ASSERT_EQ(fa.height[i], fb.height[i]) << when << ", cell " << i;
      ASSERT_EQ(fa.velocity[i].x, fb.velocity[i].x) << when << ", cell " << i;
      ASSERT_EQ(fa.velocity[i].y, fb.velocity[i].y) << when << ", cell " << i;
      ASSERT_EQ(fa.velocity[i].z, fb.velocity[i].z) << when << ", cell " << i;
    }
  };
  a.step(5);
  b.step(5);
  expect_same("after 5 steps");
  a.set_time_step(0.5 * a.time_step());
  b.set_time_step(0.5 * b.time_step());
  a.step(3);
  b.step(3);
  expect_same("after 3 more at half the step");
  EXPECT_EQ(a.time(), b.time());
}

// ModelOptions::fuse_stages applies each stage's update inside the next stage's tendency
// (5 dispatches a step, 7 with hyperdiffusion, instead of 8 and 10): the same expressions,
// which a compiler may contract into multiply-adds differently once they feed the tendency
// (llvmpipe: a few float32 roundings in 3 steps; the tracer's bits are the same), for the
// tracer, the full equations and hyperdiffusion, replayed or run one by one. Across ranks
// the fused steps keep their bits: each rank of a split whose halo covers two steps (as
// long as a rehearsal's halo lasts), with the swap's step in two passes (bands that start
// inside the own cells), steps its own cells as one process does.
TEST(Model, FusedStagesAgreeWithThePlainKernels) {
  using Fusion = ge::ModelOptions::StageFusion;
  auto& ctx = gpgpu::test::context();
  const auto& g = grid_at(3);
  // Auto: fused on a GPU (642 cells are far below its 16,384), plain on a software rasterizer
  // (where a step is not in one dispatch: one_dispatch_test.cpp).
  ge::ModelOptions steps;
  steps.one_dispatch_steps = ge::ModelOptions::OneDispatch::Off;
  EXPECT_EQ(ge::Model(ctx, g, ge::make_case(2), steps).traffic().dispatches,
            ctx.info().is_software ? 8 : 5);
  for (const int number : {1, 2, 6}) {
    const auto setup = ge::make_case(number);
    for (const bool replay : {true, false}) {
      SCOPED_TRACE(fmt::format("case {}, {}", number, replay ? "replayed" : "one by one"));
      ge::ModelOptions fused, plain;
      fused.one_dispatch_steps = plain.one_dispatch_steps = ge::ModelOptions::OneDispatch::Off;
      fused.fuse_stages = Fusion::On;
      plain.fuse_stages = Fusion::Off;
      fused.replay_steps = plain.replay_steps = replay;
      if (number == 6) fused.diffusion_time = plain.diffusion_time = 6 * 3600.0;
      ge::Model a(ctx, g, setup, fused), b(ctx, g, setup, plain);
      const int extra = number == 6 ? 2 : 0;
      ASSERT_EQ(a.traffic().dispatches, 5 + extra);  // the fused kernel is the one that runs
      ASSERT_EQ(b.traffic().dispatches, 8 + extra);
      const ge::Fields f = perturbed(g, setup);
      a.set_fields(f);
      b.set_fields(f);
      a.step(3);
      b.step(3);
      const auto fa = a.fields(), fb = b.fields();
      ASSERT_EQ(three_steps_disagreement(fa, fb), "");
      if (number == 1) {  // the tracer's update has nothing to contract differently
        for (std::size_t i = 0; i < g.cell_count(); ++i)
          ASSERT_EQ(fa.height[i], fb.height[i]) << "cell " << i;
      }
    }
  }
  const auto setup = ge::make_case(6);
  ge::ModelOptions o;
  o.fuse_stages = Fusion::On;
  o.one_dispatch_steps = ge::ModelOptions::OneDispatch::Off;  // the kernels the ranks run
  ge::Model whole(ctx, g, setup, o);
  whole.step(2);
  const auto want = whole.fields();
  o.halo_steps = 2;  // a rehearsal's swaps bring nothing: its halo must cover the steps
  o.overlap_swaps = ge::ModelOptions::SwapOverlap::On;
  for (int rank = 0; rank < 3; ++rank) {
    const auto team = ge::rehearsal(3, rank);
    ge::Model part(ctx, g, setup, o, *team);
    ASSERT_EQ(part.traffic().dispatches, 5);
    part.step(2);
    const auto got = part.fields();
    const std::size_t first = part.subdomain().first;
    ASSERT_LE(first + got.height.size(), want.height.size());
    for (std::size_t i = 0; i < got.height.size(); ++i) {
      const auto &u = got.velocity[i], &v = want.velocity[first + i];
      ASSERT_TRUE(got.height[i] == want.height[first + i] && u.x == v.x && u.y == v.y && u.z == v.z)
          << "rank " << rank << ", cell " << i;
    }
  }
}

TEST(Model, Case2HoldsTheSteadyStateAtLevel4) {
  // One day at level 4 (32 steps). The scheme's own truncation error there is 7.84e-4
  // (normalised l2, float64 reference); the target is 5e-3. float32 may add at most 1e-5.
  const auto& g = grid_at(4);
  const auto setup = ge::make_case(2);
  ge::Model model(gpgpu::test::context(), g, setup);
  model.run(86400.0);
  const auto errors =
      ge::height_errors(g, model.fields().height, ge::analytic_height(g, setup, model.time()));
  ge::ReferenceModel reference(g, setup, {});
  reference.run(86400.0);
  const auto ref =
      ge::height_errors(g, reference.fields().height, ge::analytic_height(g, setup, 86400.0));
  std::cout << "case 2, level 4, day 1: l2 " << errors.l2 << " (float64 reference " << ref.l2
            << ")\n";
  EXPECT_LT(errors.l2, 5e-3);
  EXPECT_NEAR(errors.l2, ref.l2, 1e-5);
  EXPECT_LT(errors.linf, 2e-3);
}

TEST(Model, Case1ConservesMassToFloat32Rounding) {
  // The height tendency is a sum of fluxes through edges that the two cells on either side
  // compute from the same corner values, so in exact arithmetic mass changes by nothing
  // (the float64 reference: ~1e-15). What float32 leaves, per stage: each cell's tendency
  // errs by <= 12 eps32 of its flux magnitudes S_i (times dt and its area; the continuity
  // correction's ~6 more terms of weight <= 0.1 each at most double that), and storing h
  // rounds by eps32 |h_i| at each of the stage's 2 writes. Summed over cells and the 4
  // stages of every step, with S_i and h_i from the fields before the step (the bell moves
  // less than a cell per step), the worst case adds up linearly; that is the bound.
  const auto& g = grid_at(4);
  for (double alpha : {0.0, 1.5207963267948966}) {
    const auto setup = ge::make_case(1, alpha);
    ge::Model model(gpgpu::test::context(), g, setup);
    const long long steps = ge::steps_for(12 * 86400.0, model.max_time_step());
    model.set_time_step(12 * 86400.0 / static_cast<double>(steps));
    ge::Fields f = model.fields();
    const double a2 = setup.planet.radius * setup.planet.radius;
    const double m0 = ge::host_sums(g, setup, f).mass;
    double bound = 0;
    for (long long s = 0; s < steps; ++s) {
      const auto scale = local_flux_scale(g, f, setup.planet.radius);
      for (std::size_t i = 0; i < g.cell_count(); ++i) {
        bound +=
            4 * a2 * g.areas[i] *
            (2 * eps32 * 2 * std::abs(f.height[i]) + 24 * eps32 * model.time_step() * scale[i]);
      }
      model.step(1);
      f = model.fields();
    }
    const double m1 = ge::host_sums(g, setup, f).mass;
    std::cout << "case 1, alpha " << alpha << ", " << steps << " steps: |mass change| "
              << std::abs(m1 - m0) / m0 << " of the mass, bound " << bound / m0 << "\n";
    EXPECT_LE(std::abs(m1 - m0), bound);
    // The bound is the worst case; rounding errors are zero-mean and add like a random walk,
    // so the measured change (1e-7) is far inside it. The target for every case is 1e-6.
    EXPECT_LE(std::abs(m1 - m0), 1e-6 * m0);
    for (double h : f.height) ASSERT_TRUE(std::isfinite(h));
  }
}

TEST_P(ModelVersusReference, FluxesCancelInTheMassTendency) {
  // sum_i A_i dh_i/dt is zero in exact arithmetic (every edge's flux leaves one cell and
  // enters the other); in float32 each cell's tendency errs by <= 12 eps32 S_i (see
  // local_flux_scale), so |sum_i A_i dh_i| <= 12 eps32 sum_i A_i S_i. A single cell that lost
  // or doubled one flux would exceed this ~100-fold at level 4.
  const int number = GetParam();
  const auto& g = grid_at(4);
  const auto setup = ge::make_case(number);
  ge::Model model(gpgpu::test::context(), g, setup);
  const ge::Fields f = perturbed(g, setup);
  model.set_fields(f);
  const auto dh = model.raw_tendency().height;
  const auto scale = local_flux_scale(g, f, setup.planet.radius);
  double sum = 0, bound = 0;
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    sum += g.areas[i] * dh[i];
    bound += 12 * eps32 * g.areas[i] * scale[i];
  }
  std::cout << "case " << number << ": |sum A dh| = " << std::abs(sum) << ", bound " << bound
            << ", one cell's flux ~ " << g.areas[0] * scale[0] / 6 << "\n";
  EXPECT_LE(std::abs(sum), bound);
}

TEST(Model, Cases5And6RunStablyAndConserveMass) {
  for (int number : {5, 6}) {
    const auto& g = grid_at(3);
    const auto setup = ge::make_case(number);
    ge::Model model(gpgpu::test::context(), g, setup);
    const double m0 = ge::host_sums(g, setup, model.fields()).mass;
    model.run(2 * 86400.0);
    const auto f = model.fields();
    for (std::size_t i = 0; i < g.cell_count(); ++i) {
      ASSERT_TRUE(std::isfinite(f.height[i]) && f.height[i] > 0)
          << "case " << number << " cell " << i;
    }
    // The target for 15/14-day runs is 1e-6; two days at level 3 stay far inside it.
    EXPECT_LE(std::abs(ge::host_sums(g, setup, f).mass / m0 - 1), 1e-6) << "case " << number;
  }
}

// A rehearsal (one process standing in for one rank, for timing its share) runs that rank's
// true work: with a halo for two steps, its own cells after two steps are the one-process
// run's, bit for bit, on every rank of an uneven three-way split.
TEST(Model, ARehearsalStepsOneRanksShare) {
  auto& ctx = gpgpu::test::context();
  const auto& g = grid_at(3);
  const auto setup = ge::make_case(6);
  ge::ModelOptions o;
  o.halo_steps = 2;
  o.one_dispatch_steps = ge::ModelOptions::OneDispatch::Off;  // the kernels the ranks run
  ge::Model whole(ctx, g, setup, o);
  whole.step(2);
  const auto want = whole.fields();
  using Overlap = ge::ModelOptions::SwapOverlap;
  for (int at = 0; at < 6; ++at) {
    const int rank = at % 3;
    o.overlap_swaps = at < 3 ? Overlap::On : Overlap::Off;  // a swap's step in two passes or one
    const auto team = ge::rehearsal(3, rank);
    ge::Model part(ctx, g, setup, o, *team);
    ASSERT_EQ(part.subdomain().rank, rank);
    ASSERT_EQ(part.subdomain().ranks, 3);
    part.step(2);
    const auto got = part.fields();
    const std::size_t first = part.subdomain().first;
    ASSERT_EQ(got.height.size(), part.subdomain().owned);
    for (std::size_t i = 0; i < got.height.size(); ++i) {
      ASSERT_EQ(got.height[i], want.height[first + i]) << "rank " << rank << " pass " << at;
      const auto &u = got.velocity[i], &v = want.velocity[first + i];
      ASSERT_TRUE(u.x == v.x && u.y == v.y && u.z == v.z) << "rank " << rank << " cell " << i;
    }
  }
  EXPECT_THROW(ge::rehearsal(3, 3), gpgpu::ArgumentError);
  EXPECT_THROW(ge::rehearsal(0, 0), gpgpu::ArgumentError);
  EXPECT_THROW(ge::rehearsal(2, -1), gpgpu::ArgumentError);
}

// A rank's share with the halo every 2 steps, overlapped: steps 0 and 2 start with a swap
// (their three marks), step 1 does not; the window keeps steps 0-2 of the 4 taken, and the
// fields come out as without a timeline.
TEST(Model, MarksItsStepsAndSwapsOnATimeline) {
  const auto team = ge::rehearsal(2, 1);
  const auto share = [&team] {
    ge::ModelOptions o;
    o.halo_steps = 2;
    o.overlap_swaps = ge::ModelOptions::SwapOverlap::On;
    return ge::Model(gpgpu::test::context(), grid_at(3), ge::make_case(6), o, *team);
  };
  ge::Model plain = share();
  plain.step(4);
  ge::Model marked = share();
  gpgpu::Timeline timeline(gpgpu::test::context(), {.capacity = 64, .first = 0, .last = 2});
  marked.set_timeline(&timeline);
  marked.step(4);
  marked.set_timeline(nullptr);
  marked.step(1);  // unmarked from here
  const std::vector<std::pair<std::string, long long>> want = {
      {"step", 0}, {"swap started", 0}, {"inner step", 0}, {"swap done", 0}, {"step", 1},
      {"step", 2}, {"swap started", 2}, {"inner step", 2}, {"swap done", 2}};
  const auto marks = timeline.marks();
  ASSERT_EQ(marks.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(marks[i].label, want[i].first) << i;
    EXPECT_EQ(marks[i].index, want[i].second) << i;
  }
  plain.step(1);
  const auto a = plain.fields(), b = marked.fields();
  for (std::size_t i = 0; i < a.height.size(); ++i) ASSERT_EQ(a.height[i], b.height[i]) << i;
}

TEST(Model, GpuSumsAgreeWithFloat64Sums) {
  const auto& g = grid_at(4);
  const auto setup = ge::make_case(6);
  ge::Model model(gpgpu::test::context(), g, setup);
  model.step(3);
  const auto gpu = model.sums();
  const auto host = ge::host_sums(g, setup, model.fields());
  // gpgpu::reduce adds in a tree of depth d: <= d eps32 of the sum of magnitudes. Energy and
  // enstrophy are sums of positive terms; mass sums the deviations h - mean (whose
  // magnitudes sum to at most the mass) and adds the mean in float64. The per-cell values
  // are computed in float32 (~10 operations): 10 eps32 more.
  const int d = gpgpu::reduce_error_depth(gpgpu::test::context(), g.cell_count(), 4);
  EXPECT_NEAR(gpu.mass, host.mass, (d + 10) * eps32 * host.mass);
  EXPECT_NEAR(gpu.energy, host.energy, (d + 10) * eps32 * host.energy);
  // Enstrophy needs zeta, from the curl, which float32 computes to ~1e-6 relative.
  EXPECT_NEAR(gpu.potential_enstrophy, host.potential_enstrophy, 1e-5 * host.potential_enstrophy);
}

TEST(Model, ReferenceCase2ConvergesAtSecondOrder) {
  // The float64 reference, one day, levels 3..5: the scheme itself, no float32.
  std::vector<double> l2;
  for (int level = 3; level <= 5; ++level) {
    const auto& g = grid_at(level);
    const auto setup = ge::make_case(2);
    ge::ReferenceModel m(g, setup, {});
    m.run(86400.0);
    l2.push_back(
        ge::height_errors(g, m.fields().height, ge::analytic_height(g, setup, 86400.0)).l2);
  }
  // Measured: 3.21e-3, 7.84e-4, 1.95e-4 (orders 2.03, 2.01).
  EXPECT_GE(std::log2(l2[0] / l2[1]), 1.8);
  EXPECT_GE(std::log2(l2[1] / l2[2]), 1.8);
}

// Under OpenGL ES 3.1's minimum (4 storage buffers in a compute shader) the tendency kernel's
// 5 do not bind: the model is refused naming the limit and both figures, before any step.
TEST(Model, UnderTheSpecsMinimumIsRefusedNamingTheStorageBufferLimit) {
  gpgpu::Context small({.limits = "es31-minimum"});
  try {
    ge::Model model(small, grid_at(2), ge::make_case(2));
    ADD_FAILURE() << "a model was made under es31-minimum";
  } catch (const gpgpu::DeviceLimitError& e) {
    EXPECT_EQ(e.limit(), "GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS") << e.what();
    EXPECT_EQ(e.allowed(), 4) << e.what();
    EXPECT_GT(e.needed(), 4) << e.what();
  }
}

// A Mali-G610-class profile (8 storage buffers, 256 invocations a group) fits the model: its
// steps give the bits of the same steps on the device's own limits (each cell's update reads
// only its neighbours; no sum depends on the work-group size). The same kernels: the profile
// has too few storage buffers for a step in one dispatch (one_dispatch_test.cpp).
TEST(Model, UnderAMaliProfileStepsGiveTheBitsOfTheDevicesOwnLimits) {
  gpgpu::Context mali({.limits = "mali-g610-panfrost"});
  const auto& g = grid_at(3);
  const auto setup = ge::make_case(6);
  ge::ModelOptions o;
  o.one_dispatch_steps = ge::ModelOptions::OneDispatch::Off;
  ge::Model a(mali, g, setup, o), b(gpgpu::test::context(), g, setup, o);
  const ge::Fields f = perturbed(g, setup);
  a.set_fields(f);
  b.set_fields(f);
  a.step(4);
  b.step(4);
  const auto fa = a.fields(), fb = b.fields();
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    ASSERT_EQ(fa.height[i], fb.height[i]) << "cell " << i;
    ASSERT_EQ(fa.velocity[i].x, fb.velocity[i].x) << "cell " << i;
    ASSERT_EQ(fa.velocity[i].y, fb.velocity[i].y) << "cell " << i;
    ASSERT_EQ(fa.velocity[i].z, fb.velocity[i].z) << "cell " << i;
  }
}

TEST(Model, RejectsBadInput) {
  const auto& g = grid_at(2);
  auto& ctx = gpgpu::test::context();
  EXPECT_THROW(ge::make_case(3), gpgpu::ArgumentError);
  EXPECT_THROW(ge::make_case(5, 0.3), gpgpu::ArgumentError);
  ge::ModelOptions bad;
  bad.courant = -1;
  EXPECT_THROW(ge::Model(ctx, g, ge::make_case(2), bad), gpgpu::ArgumentError);
  bad = {};
  bad.continuity_correction = 2;
  EXPECT_THROW(ge::Model(ctx, g, ge::make_case(2), bad), gpgpu::ArgumentError);
  bad = {};
  bad.work_group_size = 100;
  EXPECT_THROW(ge::Model(ctx, g, ge::make_case(2), bad), gpgpu::ArgumentError);
  for (const int steps : {-1, 17}) {
    bad = {};
    bad.halo_steps = steps;
    EXPECT_THROW(ge::Model(ctx, g, ge::make_case(2), bad), gpgpu::ArgumentError) << steps;
  }
  bad = {};
  bad.halo_per_step = false;
  bad.halo_steps = 2;  // several steps a swap need the swap once a step
  EXPECT_THROW(ge::Model(ctx, g, ge::make_case(2), bad), gpgpu::ArgumentError);
  ge::Model model(ctx, g, ge::make_case(2));
  ge::Fields f = model.fields();
  const auto before = f.height;
  f.height.pop_back();
  EXPECT_THROW(model.set_fields(f), gpgpu::SizeMismatchError);
  EXPECT_EQ(model.fields().height, before);  // unchanged
  EXPECT_THROW(model.step(-1), gpgpu::ArgumentError);
  EXPECT_THROW(model.run(-5.0), gpgpu::ArgumentError);
  EXPECT_THROW(model.set_time_step(0), gpgpu::ArgumentError);
  EXPECT_THROW(ge::analytic_height(g, ge::make_case(6), 0), gpgpu::ArgumentError);
}

}  // namespace
