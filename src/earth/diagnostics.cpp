// Error norms, float64 global sums, and the point locator (gpgpu/earth/diagnostics.hpp).
#include "gpgpu/earth/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "gpgpu/earth/operators.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth {

ErrorNorms height_errors(const Grid& grid, std::span<const double> h,
                         std::span<const double> truth) {
  check_cell_count(grid, h.size(), "the height");
  check_cell_count(grid, truth.size(), "the true height");
  double e1 = 0, t1 = 0, e2 = 0, t2 = 0, emax = 0, tmax = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    const double a = grid.areas[i], e = h[i] - truth[i];
    e1 += a * std::abs(e);
    t1 += a * std::abs(truth[i]);
    e2 += a * e * e;
    t2 += a * truth[i] * truth[i];
    emax = std::max(emax, std::abs(e));
    tmax = std::max(tmax, std::abs(truth[i]));
  }
  return {e1 / t1, std::sqrt(e2 / t2), emax / tmax};
}

GlobalSums host_sums(const Grid& grid, const CaseSetup& setup, const Fields& f) {
  check_cell_count(grid, f.height.size(), "the height");
  check_cell_count(grid, f.velocity.size(), "the velocity");
  const auto zeta = curl(grid, f.velocity);
  const double a = setup.planet.radius, g = setup.planet.gravity;
  const Vec3 axis = setup.coriolis_axis();
  GlobalSums s;
  for (std::size_t i = 0; i < grid.cell_count(); ++i) {
    const double area = grid.areas[i] * a * a, h = f.height[i];
    const double z = zeta[i] / a, q = z + 2 * setup.planet.omega * dot(grid.centres[i], axis);
    s.mass += area * h;
    s.energy +=
        area * (0.5 * h * dot(f.velocity[i], f.velocity[i]) + g * h * (0.5 * h + f.surface[i]));
    s.potential_enstrophy += area * 0.5 * q * q / h;
    s.circulation += area * z;
  }
  return s;
}

Drift drift(const GlobalSums& start, const GlobalSums& now) {
  auto rel = [](double a, double b) { return (b - a) / std::abs(a); };
  return {rel(start.mass, now.mass), rel(start.energy, now.energy),
          rel(start.potential_enstrophy, now.potential_enstrophy),
          now.circulation - start.circulation};
}

Locator::Locator(const Grid& grid) : grid_(&grid) {
  if (grid.cell_count() == 0) throw ArgumentError("earth locator: the grid is empty");
}

std::size_t Locator::nearest_from(std::size_t start, const Vec3& p) const {
  // Greedy walk: on a Delaunay triangulation a vertex that is not the nearest to p always
  // has a neighbour nearer to p, so the walk ends at the nearest.
  std::size_t at = start;
  double best = dot(grid_->centres[at], p);
  for (;;) {
    std::size_t next = at;
    for (int k = 0; k < grid_->degree[at]; ++k) {
      const auto j = static_cast<std::size_t>(grid_->neighbours[at][k]);
      const double d = dot(grid_->centres[j], p);
      if (d > best) best = d, next = j;
    }
    if (next == at) return at;
    at = next;
  }
}

Locator::Hit Locator::locate(const Vec3& p) {
  const Grid& g = *grid_;
  Hit hit;
  hit.nearest = last_ = nearest_from(last_, p);
  // The triangle round the nearest cell whose planar barycentric coordinates of p are all
  // non-negative; the least negative one if rounding leaves none (p on an edge).
  double best_min = -std::numeric_limits<double>::infinity();
  auto consider = [&](std::size_t cell) {
    for (int k = 0; k < g.degree[cell]; ++k) {
      const auto& t = g.triangles[g.cell_triangles[cell][k]];
      const Vec3 &a = g.centres[t[0]], &b = g.centres[t[1]], &c = g.centres[t[2]];
      const double wa = triple(p, b, c), wb = triple(a, p, c), wc = triple(a, b, p);
      const double sum = wa + wb + wc;
      const std::array<double, 3> w{wa / sum, wb / sum, wc / sum};
      const double lowest = std::min({w[0], w[1], w[2]});
      if (lowest > best_min) {
        best_min = lowest;
        hit.cells = {static_cast<std::size_t>(t[0]), static_cast<std::size_t>(t[1]),
                     static_cast<std::size_t>(t[2])};
        hit.weights = w;
      }
    }
  };
  consider(hit.nearest);
  if (best_min < -1e-12) {
    for (int k = 0; k < g.degree[hit.nearest]; ++k) consider(g.neighbours[hit.nearest][k]);
  }
  return hit;
}

std::size_t Locator::cell_of(const Vec3& p) {
  const Grid& g = *grid_;
  std::size_t at = last_ = nearest_from(last_, p);
  // Control volumes are convex: p is inside when it is behind every edge's plane. Step
  // across the edge it is most in front of until it is inside (a few steps at most).
  for (int guard = 0; guard < 16; ++guard) {
    int worst = -1;
    double most = 0;
    for (int k = 0; k < g.degree[at]; ++k) {
      const double d = dot(p, g.edge_normals[at][k]);
      if (d > most) most = d, worst = k;
    }
    if (worst < 0) break;
    at = static_cast<std::size_t>(g.neighbours[at][worst]);
  }
  return at;
}

std::vector<double> interpolate(Locator& locator, std::span<const double> values,
                                std::span<const Vec3> points) {
  check_cell_count(locator.grid(), values.size(), "the field to interpolate");
  std::vector<double> out(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto hit = locator.locate(points[i]);
    out[i] = hit.weights[0] * values[hit.cells[0]] + hit.weights[1] * values[hit.cells[1]] +
             hit.weights[2] * values[hit.cells[2]];
  }
  return out;
}

}  // namespace gpgpu::earth
