// The icosahedral grid: counts, Euler characteristic, areas, neighbours, control volumes,
// for levels 0..6 of both point placements, and the rejection of bad options.
#include <cmath>
#include <map>
#include <numbers>
#include <tuple>

#include <gtest/gtest.h>

#include "gpgpu/earth/grid.hpp"
#include "gpgpu/error.hpp"

namespace ge = gpgpu::earth;

namespace {

constexpr double eps64 = 0x1p-52;

struct Variant {
  int level;
  ge::GridOptimization optimization;
  bool recentre;
};

std::string name_of(const testing::TestParamInfo<Variant>& info) {
  return std::string(info.param.optimization == ge::GridOptimization::Spring ? "Spring"
                                                                             : "Bisection") +
         (info.param.recentre ? "Recentred" : "") + "Level" + std::to_string(info.param.level);
}

// Grids are built once per variant and shared by the tests (level 6 takes seconds).
const ge::Grid& build(const Variant& v) {
  static std::map<std::tuple<int, int, bool>, ge::Grid> cache;
  const auto key = std::make_tuple(v.level, static_cast<int>(v.optimization), v.recentre);
  auto it = cache.find(key);
  if (it == cache.end()) {
    ge::GridOptions o;
    o.level = v.level;
    o.optimization = v.optimization;
    o.recentre = v.recentre;
    o.device = ge::GridDevice::Cpu;  // grid_build_test.cpp compares the devices
    it = cache.emplace(key, ge::build_grid(o)).first;
  }
  return it->second;
}

class GridInvariants : public testing::TestWithParam<Variant> {};

TEST_P(GridInvariants, CountsAndTopology) {
  const auto v = GetParam();
  const ge::Grid& g = build(v);
  const std::size_t four_n = std::size_t{1} << (2 * v.level);
  EXPECT_EQ(g.cell_count(), 10 * four_n + 2);
  EXPECT_EQ(g.cell_count(), ge::cell_count_at(v.level));
  EXPECT_EQ(g.triangle_count(), 20 * four_n);
  EXPECT_EQ(g.edge_count(), 30 * four_n);
  const auto s = ge::statistics(g);
  EXPECT_EQ(s.euler_characteristic, 2);
  EXPECT_EQ(s.pentagons, 12u);
  EXPECT_EQ(s.hexagons, g.cell_count() - 12);
  EXPECT_TRUE(s.neighbours_symmetric);
  EXPECT_TRUE(s.neighbours_counter_clockwise);
  EXPECT_TRUE(s.triangles_consistent);
  EXPECT_TRUE(s.normals_outward);
}

TEST_P(GridInvariants, GeometryOnTheUnitSphere) {
  const auto v = GetParam();
  const ge::Grid& g = build(v);
  const auto s = ge::statistics(g);
  // |x| of a normalised float64 vector errs by a few units of eps64.
  EXPECT_LE(s.max_radius_error, 4 * eps64);
  for (const auto& c : g.corners) EXPECT_NEAR(ge::norm(c), 1.0, 4 * eps64);
  // Each area is atan2 of exact-to-rounding terms (relative error ~10 eps64) and the sum of
  // N of them adds N eps64 of the total: the control volumes tile the sphere, so the sum is
  // 4 pi to (10 + N) eps64 4 pi.
  const double bound = (10.0 + static_cast<double>(g.cell_count())) * eps64 * 4 * std::numbers::pi;
  EXPECT_LE(s.area_sum_error, bound);
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    ASSERT_GT(g.areas[i], 0.0) << "cell " << i;
    double perimeter = 0;
    for (int k = 0; k < g.degree[i]; ++k) {
      ASSERT_GT(g.edge_lengths[i][k], 0.0);
      ASSERT_NEAR(ge::norm(g.edge_normals[i][k]), 1.0, 8 * eps64);
      // The normal is tangent at the edge's midpoint and orthogonal to its tangent.
      ASSERT_NEAR(ge::dot(g.edge_normals[i][k], g.edge_midpoint(i, k)), 0.0, 1e-12);
      perimeter += g.edge_lengths[i][k];
    }
    // Isoperimetric sanity: a hexagon or pentagon of area A has perimeter ~3.7 sqrt(A).
    ASSERT_GT(perimeter, 3.0 * std::sqrt(g.areas[i]));
    ASSERT_LT(perimeter, 4.5 * std::sqrt(g.areas[i]));
  }
  // Centroid control volumes: corners at the normalised triangle centroids, weights 1/3.
  for (std::size_t t = 0; t < g.triangle_count(); ++t) {
    const auto& c = g.triangles[t];
    const auto expect = ge::normalized(g.centres[c[0]] + g.centres[c[1]] + g.centres[c[2]]);
    ASSERT_LE(ge::norm(g.corners[t] - expect), 4 * eps64);
    for (double w : g.corner_weights[t]) ASSERT_EQ(w, 1.0 / 3);
  }
  EXPECT_GT(s.min_spacing, 0.0);
  EXPECT_LE(s.max_spacing / s.min_spacing, 1.6);  // quasi-uniform
}

TEST_P(GridInvariants, RecentringMovesPointsTowardTheirVolumesCentroids) {
  const auto v = GetParam();
  const auto moved = ge::statistics(build({v.level, v.optimization, true}));
  if (v.level < 2) {
    // Levels 0 and 1 are symmetric: every point already is its volume's centroid.
    EXPECT_LT(moved.max_centroid_offset, 1e-12);
    return;
  }
  const auto unmoved = ge::statistics(build({v.level, v.optimization, false}));
  // Moving each point to its volume's centroid changes the volumes too, so offsets remain,
  // but the largest halves (measured at levels 2-6: 0.049-0.065 -> 0.009-0.041 for
  // bisection, 0.030-0.045 -> 0.011-0.023 for spring dynamics).
  EXPECT_LT(moved.max_centroid_offset, 0.8 * unmoved.max_centroid_offset);
  EXPECT_LE(moved.mean_centroid_offset, unmoved.mean_centroid_offset);
}

std::vector<Variant> variants() {
  std::vector<Variant> v;
  for (int level = 0; level <= 6; ++level) {
    v.push_back({level, ge::GridOptimization::Bisection, false});
    v.push_back({level, ge::GridOptimization::Spring, true});
  }
  v.push_back({4, ge::GridOptimization::Bisection, true});
  v.push_back({4, ge::GridOptimization::Spring, false});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Levels, GridInvariants, testing::ValuesIn(variants()), name_of);

TEST(Grid, SpringDynamicsIsSmootherThanBisection) {
  // The recursive grid's cells are distorted along the edges of every coarser level;
  // spring dynamics spreads the distortion smoothly, which shows as points nearer their
  // volumes' centroids (measured mean offsets at level 5: 0.0028 against 0.0106).
  const auto bisection = ge::statistics(build({5, ge::GridOptimization::Bisection, false}));
  const auto spring = ge::statistics(build({5, ge::GridOptimization::Spring, false}));
  EXPECT_LT(spring.mean_centroid_offset, 0.5 * bisection.mean_centroid_offset);
}

TEST(Grid, NeighboursAndTrianglesAgreeOnCorners) {
  const ge::Grid& g = build({3, ge::GridOptimization::Spring, true});
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    const int m = g.degree[i];
    for (int k = 0; k < m; ++k) {
      // Edge k separates the cell from neighbour k: the neighbour lists the same edge with
      // the same two corners in the opposite direction and the opposite normal.
      const auto j = static_cast<std::size_t>(g.neighbours[i][k]);
      int back = -1;
      for (int q = 0; q < g.degree[j]; ++q) {
        if (g.neighbours[j][q] == static_cast<std::int32_t>(i)) back = q;
      }
      ASSERT_GE(back, 0);
      EXPECT_EQ(&g.edge_start(i, k), &g.edge_end(j, back));
      EXPECT_EQ(&g.edge_end(i, k), &g.edge_start(j, back));
      EXPECT_EQ(g.edge_lengths[i][k], g.edge_lengths[j][back]);
      EXPECT_EQ(g.edge_normals[i][k].x, -g.edge_normals[j][back].x);
      EXPECT_EQ(g.edge_normals[i][k].y, -g.edge_normals[j][back].y);
      EXPECT_EQ(g.edge_normals[i][k].z, -g.edge_normals[j][back].z);
    }
    for (int k = m; k < 6; ++k) EXPECT_EQ(g.neighbours[i][k], -1);
  }
}

TEST(Grid, RejectsBadOptions) {
  ge::GridOptions o;
  o.level = -1;
  EXPECT_THROW(ge::build_grid(o), gpgpu::ArgumentError);
  o.level = ge::max_grid_level + 1;
  EXPECT_THROW(ge::build_grid(o), gpgpu::ArgumentError);
  EXPECT_THROW(ge::cell_count_at(12), gpgpu::ArgumentError);
  o.level = 2;
  o.spring_beta = 0;
  EXPECT_THROW(ge::build_grid(o), gpgpu::ArgumentError);
  o.spring_beta = 1.2;
  o.spring_tolerance = -1;
  EXPECT_THROW(ge::build_grid(o), gpgpu::ArgumentError);
  o.spring_tolerance = 1e-7;
  o.spring_max_sweeps = -3;
  EXPECT_THROW(ge::build_grid(o), gpgpu::ArgumentError);
}

}  // namespace
