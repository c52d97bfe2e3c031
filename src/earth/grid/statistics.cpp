// statistics(grid): spacing, areas and the consistency checks of a built grid.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "gpgpu/earth/grid.hpp"

namespace gpgpu::earth {

namespace {

constexpr double four_pi = 12.566370614359172954;

bool check_symmetric(const Grid& g) {
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    for (int k = 0; k < g.degree[i]; ++k) {
      const auto j = static_cast<std::size_t>(g.neighbours[i][k]);
      const auto& nb = g.neighbours[j];
      if (std::find(nb.begin(), nb.begin() + g.degree[j], static_cast<std::int32_t>(i)) ==
          nb.begin() + g.degree[j]) {
        return false;
      }
    }
    for (int k = g.degree[i]; k < 6; ++k) {
      if (g.neighbours[i][k] != -1) return false;
    }
  }
  return true;
}

// Consecutive neighbours turn counter-clockwise around the cell (seen from outside).
bool check_counter_clockwise(const Grid& g) {
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    const int m = g.degree[i];
    for (int k = 0; k < m; ++k) {
      const Vec3& a = g.centres[g.neighbours[i][k]];
      const Vec3& b = g.centres[g.neighbours[i][(k + 1) % m]];
      if (triple(g.centres[i], a, b) <= 0) return false;
    }
  }
  return true;
}

bool check_triangles(const Grid& g) {
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    const int m = g.degree[i];
    for (int k = 0; k < m; ++k) {
      const auto& t = g.triangles[g.cell_triangles[i][k]];
      const std::int32_t self = static_cast<std::int32_t>(i), a = g.neighbours[i][k],
                         b = g.neighbours[i][(k + 1) % m];
      const bool match = (t[0] == self && t[1] == a && t[2] == b) ||
                         (t[1] == self && t[2] == a && t[0] == b) ||
                         (t[2] == self && t[0] == a && t[1] == b);
      if (!match) return false;
    }
  }
  return true;
}

bool check_normals(const Grid& g) {
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    for (int k = 0; k < g.degree[i]; ++k) {
      const Vec3 towards = g.centres[g.neighbours[i][k]] - g.centres[i];
      if (dot(g.edge_normals[i][k], towards) <= 0) return false;
    }
  }
  return true;
}

}  // namespace

GridStatistics statistics(const Grid& g) {
  GridStatistics s;
  s.level = g.level;
  s.cells = g.cell_count();
  s.triangles = g.triangle_count();
  s.edges = g.edge_count();
  s.euler_characteristic = static_cast<long long>(s.cells) - static_cast<long long>(s.edges) +
                           static_cast<long long>(s.triangles);
  s.min_spacing = s.min_area = std::numeric_limits<double>::max();
  double spacing_sum = 0, area_sum = 0;
  std::size_t spacing_count = 0;
  for (std::size_t i = 0; i < s.cells; ++i) {
    (g.degree[i] == 5 ? s.pentagons : s.hexagons) += 1;
    for (int k = 0; k < g.degree[i]; ++k) {
      const double d = g.neighbour_distances[i][k];
      s.min_spacing = std::min(s.min_spacing, d);
      s.max_spacing = std::max(s.max_spacing, d);
      spacing_sum += d;
      ++spacing_count;
    }
    s.min_area = std::min(s.min_area, g.areas[i]);
    s.max_area = std::max(s.max_area, g.areas[i]);
    area_sum += g.areas[i];
    s.max_radius_error = std::max(s.max_radius_error, std::abs(norm(g.centres[i]) - 1.0));
  }
  s.mean_spacing = spacing_sum / static_cast<double>(spacing_count);
  s.area_ratio = s.max_area / s.min_area;
  s.area_sum_error = std::abs(area_sum - four_pi);
  double offset_sum = 0;
  for (std::size_t i = 0; i < s.cells; ++i) {
    const double offset = arc_length(g.centres[i], control_volume_centroid(g, i)) / s.mean_spacing;
    s.max_centroid_offset = std::max(s.max_centroid_offset, offset);
    offset_sum += offset;
  }
  s.mean_centroid_offset = offset_sum / static_cast<double>(s.cells);
  s.neighbours_symmetric = check_symmetric(g);
  s.neighbours_counter_clockwise = check_counter_clockwise(g);
  s.triangles_consistent = check_triangles(g);
  s.normals_outward = check_normals(g);
  return s;
}

std::string GridStatistics::to_string(double radius_km) const {
  auto yes = [](bool b) { return b ? "yes" : "NO"; };
  std::string out;
  out += fmt::format("level {}: {} cells ({} hexagons, {} pentagons), {} triangles, {} edges\n",
                     level, cells, hexagons, pentagons, triangles, edges);
  out += fmt::format("Euler characteristic V - E + F = {}\n", euler_characteristic);
  out += fmt::format("spacing (km): min {:.2f}, mean {:.2f}, max {:.2f} (max/min {:.4f})\n",
                     min_spacing * radius_km, mean_spacing * radius_km, max_spacing * radius_km,
                     max_spacing / min_spacing);
  out +=
      fmt::format("cell area (km^2): min {:.6g}, max {:.6g}, ratio max/min {:.4f}\n",
                  min_area * radius_km * radius_km, max_area * radius_km * radius_km, area_ratio);
  out += fmt::format("|sum of areas - 4 pi| = {:.3g}; max | |centre| - 1 | = {:.3g}\n",
                     area_sum_error, max_radius_error);
  out += fmt::format("point to volume centroid, in spacings: mean {:.3g}, max {:.3g}\n",
                     mean_centroid_offset, max_centroid_offset);
  out += fmt::format(
      "checks: neighbours symmetric {}, counter-clockwise {}, triangles consistent {}, "
      "normals outward {}\n",
      yes(neighbours_symmetric), yes(neighbours_counter_clockwise), yes(triangles_consistent),
      yes(normals_outward));
  return out;
}

}  // namespace gpgpu::earth
