// The grid build's devices: grids built on the GPU (float32 spring sweeps, checked in
// float64) and on the CPU (float64) are the same grid to within the spring tolerance, and
// Auto times both once, then follows its timing.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "gpgpu/earth/grid.hpp"
#include "grid_sandbox.hpp"
#include "test_support.hpp"

namespace ge = gpgpu::earth;

namespace {

ge::GridOptions options(int level, ge::GridDevice device, bool reorder) {
  ge::GridOptions o;
  o.level = level;
  o.device = device;
  o.reorder = reorder;
  return o;
}

// Both builds stop when no point moves more than 1e-6 of the spring length L in a sweep and
// no force exceeds 1e-6 L (the GPU's stop is checked by a float64 sweep). What is left to
// move after that is at most move / (1 - rho) for a mode contracting by rho a sweep; with
// rho <= 0.99 at levels <= 5 that is 1e-4 L, so two builds differ by at most 2e-4 L per
// point (measured on llvmpipe: <= 4e-7 of the mean spacing), and a distance or an area
// ratio by at most 4e-4 relative (two points each).
constexpr double point_bound = 2e-4;  // of the mean spacing
constexpr double stats_bound = 4e-4;  // relative

void expect_converged(const ge::GridBuildReport& report, bool on_gpu) {
  for (const auto& l : report.levels) {
    EXPECT_TRUE(l.converged) << "level " << l.level;
    if (on_gpu) {
      EXPECT_GT(l.gpu_sweeps, 0) << "level " << l.level;
    } else {
      EXPECT_EQ(l.gpu_sweeps, 0) << "level " << l.level;
    }
  }
}

void expect_close_statistics(const ge::Grid& a, const ge::Grid& b) {
  const auto sa = ge::statistics(a), sb = ge::statistics(b);
  EXPECT_NEAR(sa.min_spacing / sb.min_spacing, 1.0, stats_bound);
  EXPECT_NEAR(sa.mean_spacing / sb.mean_spacing, 1.0, stats_bound);
  EXPECT_NEAR(sa.max_spacing / sb.max_spacing, 1.0, stats_bound);
  EXPECT_NEAR(sa.area_ratio / sb.area_ratio, 1.0, stats_bound);
  EXPECT_TRUE(sa.neighbours_symmetric && sa.neighbours_counter_clockwise &&
              sa.triangles_consistent && sa.normals_outward);
}

class GpuAgainstCpu : public testing::TestWithParam<int> {};

// Without the Morton order the cells are in the order they were made, which does not depend
// on where the points went: the two grids can be compared point by point.
TEST_P(GpuAgainstCpu, PointsAgreeWithinTheSpringTolerance) {
  const int level = GetParam();
  ge::test::CacheSandbox sandbox;
  const auto cpu = ge::build_grid_reported(options(level, ge::GridDevice::Cpu, false));
  const auto gpu =
      ge::build_grid_reported(options(level, ge::GridDevice::Gpu, false), &gpgpu::test::context());
  expect_converged(cpu.report, false);
  expect_converged(gpu.report, true);
  EXPECT_EQ(gpu.report.gpu, gpgpu::test::context().info().renderer);
  ASSERT_EQ(cpu.grid.triangles, gpu.grid.triangles);
  const double spacing = ge::statistics(cpu.grid).mean_spacing;
  double worst = 0;
  for (std::size_t i = 0; i < cpu.grid.cell_count(); ++i) {
    worst = std::max(worst, ge::norm(cpu.grid.centres[i] - gpu.grid.centres[i]) / spacing);
  }
  EXPECT_LE(worst, point_bound);
  expect_close_statistics(gpu.grid, cpu.grid);
}

INSTANTIATE_TEST_SUITE_P(Levels, GpuAgainstCpu, testing::Values(2, 3, 4, 5));

// In Morton order (the default) the statistics agree too.
TEST(GridBuild, GpuAndCpuStatisticsAgreeInMortonOrder) {
  ge::test::CacheSandbox sandbox;
  const ge::Grid cpu = ge::build_grid(options(4, ge::GridDevice::Cpu, true));
  const ge::Grid gpu =
      ge::build_grid(options(4, ge::GridDevice::Gpu, true), &gpgpu::test::context());
  expect_close_statistics(gpu, cpu);
}

// Auto times the first level of 40962 points or more on both devices, keeps the timing in
// the cache, and later builds follow it without timing again. The levels are cut to 60
// sweeps (a level-6 grid relaxed in full takes 20 s under the sanitizers): what is checked
// is where the sweeps ran.
TEST(GridBuild, AutoTimesOnceThenFollowsItsTiming) {
  ge::test::CacheSandbox sandbox;
  ge::GridOptions o = options(6, ge::GridDevice::Auto, true);
  o.spring_max_sweeps = 60;
  const auto first = ge::build_grid_reported(o, &gpgpu::test::context());
  const ge::GridLevelReport& timed = first.report.levels.back();
  ASSERT_EQ(timed.level, 6);
  EXPECT_GT(timed.cpu_sweep_ms, 0);
  EXPECT_GT(timed.gpu_sweep_ms, 0);
  for (const auto& l : first.report.levels) {
    if (l.level < 6) {
      EXPECT_EQ(l.gpu_sweeps, 0) << "level " << l.level;  // below level 6: the CPU
    }
  }
  const bool gpu_won = timed.gpu_sweep_ms < timed.cpu_sweep_ms;
  // Whichever won went on: most sweeps of the level were made there.
  EXPECT_EQ(2 * timed.gpu_sweeps > timed.sweeps, gpu_won);
  const auto second = ge::build_grid_reported(o, &gpgpu::test::context());
  const ge::GridLevelReport& followed = second.report.levels.back();
  EXPECT_LT(followed.cpu_sweep_ms, 0);  // not timed again
  EXPECT_LT(followed.gpu_sweep_ms, 0);
  EXPECT_EQ(followed.gpu_sweeps > 0, gpu_won);
  EXPECT_EQ(followed.sweeps, 60);
  EXPECT_TRUE(sandbox.warnings.empty());
}

TEST(GridBuild, ReportNamesEveryStage) {
  ge::test::CacheSandbox sandbox;
  const auto b = ge::build_grid_reported(options(3, ge::GridDevice::Cpu, true));
  std::vector<std::string> names;
  double sum = 0;
  for (const auto& s : b.report.stages) names.push_back(s.name), sum += s.seconds;
  const std::vector<std::string> expected{"subdivide", "neighbours",      "springs", "morton order",
                                          "rings",     "control volumes", "recentre"};
  EXPECT_EQ(names, expected);
  EXPECT_LE(sum, b.report.seconds * (1 + 1e-9));
  EXPECT_EQ(b.report.levels.size(), 3u);
  EXPECT_NE(b.report.to_string().find("morton order"), std::string::npos);
}

}  // namespace
