// The shallow-water model across MPI ranks (gpgpu::earth::MpiTeam), under mpirun with 2 and
// 3 ranks (3 splits level 3's 642 cells and level 4's 2562 evenly, 2 does too; the halo is
// uneven either way): cases 2 and 6 stepped on the ranks, with the halo swapped once a step
// (8 or 10 rings) and before every stage (2 rings), equal one process's model bit for bit
// (fields, vorticity, tendencies), the sums agree to their float32 bound, and a state broken
// on one rank stops every rank with one message naming the cell.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpgpu/earth.hpp"
#include "gpgpu/earth/mpi.hpp"
#include "gpgpu/primitives.hpp"
#include "mpi_test_support.hpp"
#include "test_support.hpp"

namespace ge = gpgpu::earth;
using gpgpu::test::context;
using gpgpu::test::world;

namespace {

std::size_t differing_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size());
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    n += std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i]);
  return n;
}

std::vector<double> component(const std::vector<ge::Vec3>& v, int c) {
  std::vector<double> out;
  for (const auto& x : v) out.push_back(c == 0 ? x.x : c == 1 ? x.y : x.z);
  return out;
}

struct Case {
  int case_number, level;
  double days, diffusion_hours;
};

// How the ranks swap their halo: once every `steps` steps, or before every stage; with a
// swap once every N steps, whether the inner cells' step runs while the halo travels (Auto:
// not on llvmpipe).
struct HaloWay {
  bool per_step;
  int steps = 1;
  ge::ModelOptions::SwapOverlap overlap = ge::ModelOptions::SwapOverlap::On;
};

}  // namespace

TEST(EarthAcrossRanks, StepsEqualOneProcessBitForBit) {
  using Overlap = ge::ModelOptions::SwapOverlap;
  ge::MpiTeam team(world());
  for (const auto& [run, way] :
       {std::pair{Case{2, 4, 1.0, 0}, HaloWay{true}},
        std::pair{Case{6, 3, 2.0, 0}, HaloWay{true, 1, Overlap::Auto}},
        std::pair{Case{6, 4, 0.5, 6}, HaloWay{true}}, std::pair{Case{2, 3, 1.0, 0}, HaloWay{false}},
        std::pair{Case{6, 3, 0.5, 6}, HaloWay{false}},
        std::pair{Case{2, 4, 1.0, 0}, HaloWay{true, 3}},
        std::pair{Case{6, 4, 0.5, 6}, HaloWay{true, 2, Overlap::Off}},
        std::pair{Case{6, 4, 0.5, 6}, HaloWay{true, 2}}}) {
    SCOPED_TRACE(testing::Message() << "case " << run.case_number << " level " << run.level
                                    << (way.per_step ? ", halo once every " : ", halo every stage")
                                    << (way.per_step ? std::to_string(way.steps) + " steps" : "")
                                    << ", overlap " << static_cast<int>(way.overlap));
    const ge::Grid grid = team.share_grid([&] { return ge::build_grid({.level = run.level}); });
    const auto setup = ge::make_case(run.case_number);
    ge::ModelOptions o;
    o.diffusion_time = run.diffusion_hours * 3600;
    o.halo_per_step = way.per_step;
    o.halo_steps = way.steps;
    o.overlap_swaps = way.overlap;
    ge::Model part(context(), grid, setup, o, team);
    part.run(run.days * 86400.0);
    const auto f = part.fields();
    const auto zeta = part.vorticity();
    const auto sums = part.sums();
    const auto tendency = part.raw_tendency();
    if (world().rank() != 0) {
      EXPECT_TRUE(f.height.empty() && zeta.empty() && tendency.height.empty());
      continue;
    }
    ge::ModelOptions single = o;  // one process: no halo, whatever the ranks swap
    single.one_dispatch_steps = ge::ModelOptions::OneDispatch::Off;  // the ranks' kernels
    single.halo_per_step = true;
    single.halo_steps = 1;
    // A halo swapped before every stage leaves no step to fuse (ModelOptions::fuse_stages):
    // the one process runs the same plain kernels.
    if (!way.per_step) single.fuse_stages = ge::ModelOptions::StageFusion::Off;
    ge::Model whole(context(), grid, setup, single);
    whole.run(run.days * 86400.0);
    const auto w = whole.fields();
    EXPECT_EQ(part.steps_taken(), whole.steps_taken());
    EXPECT_EQ(differing_bits(f.height, w.height), 0u);
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(differing_bits(component(f.velocity, c), component(w.velocity, c)), 0u);
    EXPECT_EQ(differing_bits(zeta, whole.vorticity()), 0u);
    EXPECT_EQ(differing_bits(tendency.height, whole.raw_tendency().height), 0u);
    // The sums add per-rank partial sums: each side errs by <= (d + ranks) eps32 of the sum
    // of its terms' magnitudes (d the reduction tree's depth); energy's terms are positive,
    // so their magnitudes sum to the energy itself.
    const auto one = whole.sums();
    const int d = gpgpu::reduce_error_depth(context(), grid.cell_count(), 4);
    const double bound = 2 * (d + world().size()) * gpgpu::test::eps32;
    EXPECT_NEAR(sums.energy, one.energy, bound * one.energy);
    EXPECT_NEAR(sums.mass, one.mass, bound * one.mass);
  }
}

TEST(EarthAcrossRanks, ABrokenCellStopsEveryRankWithOneMessage) {
  ge::MpiTeam team(world());
  const ge::Grid grid = team.share_grid([] { return ge::build_grid({.level = 3}); });
  const auto setup = ge::make_case(5);
  ge::Model model(context(), grid, setup, {}, team);
  EXPECT_NO_THROW(model.check());
  const std::size_t cell = grid.cell_count() - 5;  // the last rank's
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), -5.0, 1e5}) {
    ge::Fields f = ge::initial_fields(grid, setup);
    f.height[cell] = bad;
    model.set_fields(f);
    const auto message = gpgpu::test::error_message_of([&] { model.check(); });
    EXPECT_NE(message.find("the state blew up"), std::string::npos) << message;
    EXPECT_NE(message.find(fmt::format("at cell {} ", cell)), std::string::npos) << message;
    EXPECT_NE(message.find(std::isnan(bad) ? "depth h is nan" : "outside its physical range"),
              std::string::npos)
        << message;
  }
  ge::Fields f = ge::initial_fields(grid, setup);
  f.velocity[3].y = std::numeric_limits<double>::infinity();  // rank 0's
  model.set_fields(f);
  EXPECT_THROW(model.check(), ge::InstabilityError);
}
