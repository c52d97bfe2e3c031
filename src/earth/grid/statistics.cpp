// statistics(grid): spacing, areas and the consistency checks of a built grid, on the
// build's worker threads.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "earth/grid/parallel.hpp"
#include "gpgpu/earth/grid.hpp"

namespace gpgpu::earth {

namespace {

constexpr double four_pi = 12.566370614359172954;

// The consistency checks of one cell.
bool symmetric_at(const Grid& g, std::size_t i) {
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
  return true;
}

// Consecutive neighbours turn counter-clockwise around the cell (seen from outside).
bool counter_clockwise_at(const Grid& g, std::size_t i) {
  const int m = g.degree[i];
  for (int k = 0; k < m; ++k) {
    const Vec3& a = g.centres[g.neighbours[i][k]];
    const Vec3& b = g.centres[g.neighbours[i][(k + 1) % m]];
    if (triple(g.centres[i], a, b) <= 0) return false;
  }
  return true;
}

bool triangles_at(const Grid& g, std::size_t i) {
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
  return true;
}

bool normals_at(const Grid& g, std::size_t i) {
  for (int k = 0; k < g.degree[i]; ++k) {
    const Vec3 towards = g.centres[g.neighbours[i][k]] - g.centres[i];
    if (dot(g.edge_normals[i][k], towards) <= 0) return false;
  }
  return true;
}

// What one part of the cells adds to the statistics. The cells are cut into a fixed number
// of parts, whatever the threads, so that the sums are added in the same order everywhere.
struct Partial {
  std::size_t pentagons = 0, hexagons = 0, spacings = 0;
  double min_spacing = std::numeric_limits<double>::max(), max_spacing = 0, spacing_sum = 0;
  double min_area = std::numeric_limits<double>::max(), max_area = 0, area_sum = 0;
  double max_radius_error = 0, max_offset = 0, offset_sum = 0;
  bool symmetric = true, counter_clockwise = true, triangles = true, normals = true;
};
constexpr std::size_t statistics_parts = 64;

void add_cell(const Grid& g, std::size_t i, Partial& p) {
  (g.degree[i] == 5 ? p.pentagons : p.hexagons) += 1;
  for (int k = 0; k < g.degree[i]; ++k) {
    const double d = g.neighbour_distances[i][k];
    p.min_spacing = std::min(p.min_spacing, d);
    p.max_spacing = std::max(p.max_spacing, d);
    p.spacing_sum += d;
    ++p.spacings;
  }
  p.min_area = std::min(p.min_area, g.areas[i]);
  p.max_area = std::max(p.max_area, g.areas[i]);
  p.area_sum += g.areas[i];
  p.max_radius_error = std::max(p.max_radius_error, std::abs(norm(g.centres[i]) - 1.0));
  p.symmetric = p.symmetric && symmetric_at(g, i);
  p.counter_clockwise = p.counter_clockwise && counter_clockwise_at(g, i);
  p.triangles = p.triangles && triangles_at(g, i);
  p.normals = p.normals && normals_at(g, i);
}

std::vector<Partial> partials(const Grid& g) {
  const std::size_t n = g.cell_count(), parts = std::min(statistics_parts, n);
  std::vector<Partial> out(parts);
  detail::run_parts(parts, [&](std::size_t t) {
    for (std::size_t i = n * t / parts; i < n * (t + 1) / parts; ++i) add_cell(g, i, out[t]);
  });
  return out;
}

// Offsets of the points from their volumes' centroids, in mean spacings.
void add_offsets(const Grid& g, double mean_spacing, std::vector<Partial>& parts) {
  const std::size_t n = g.cell_count();
  detail::run_parts(parts.size(), [&](std::size_t t) {
    for (std::size_t i = n * t / parts.size(); i < n * (t + 1) / parts.size(); ++i) {
      const double offset = arc_length(g.centres[i], control_volume_centroid(g, i)) / mean_spacing;
      parts[t].max_offset = std::max(parts[t].max_offset, offset);
      parts[t].offset_sum += offset;
    }
  });
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
  std::vector<Partial> parts = partials(g);
  Partial all;
  for (const auto& p : parts) {
    all.pentagons += p.pentagons, all.hexagons += p.hexagons, all.spacings += p.spacings;
    all.min_spacing = std::min(all.min_spacing, p.min_spacing);
    all.max_spacing = std::max(all.max_spacing, p.max_spacing);
    all.spacing_sum += p.spacing_sum;
    all.min_area = std::min(all.min_area, p.min_area);
    all.max_area = std::max(all.max_area, p.max_area);
    all.area_sum += p.area_sum;
    all.max_radius_error = std::max(all.max_radius_error, p.max_radius_error);
    all.symmetric = all.symmetric && p.symmetric;
    all.counter_clockwise = all.counter_clockwise && p.counter_clockwise;
    all.triangles = all.triangles && p.triangles;
    all.normals = all.normals && p.normals;
  }
  s.pentagons = all.pentagons;
  s.hexagons = all.hexagons;
  s.min_spacing = all.min_spacing;
  s.max_spacing = all.max_spacing;
  s.mean_spacing = all.spacing_sum / static_cast<double>(all.spacings);
  s.min_area = all.min_area;
  s.max_area = all.max_area;
  s.area_ratio = s.max_area / s.min_area;
  s.area_sum_error = std::abs(all.area_sum - four_pi);
  s.max_radius_error = all.max_radius_error;
  add_offsets(g, s.mean_spacing, parts);
  double offset_sum = 0;
  for (const auto& p : parts) {
    s.max_centroid_offset = std::max(s.max_centroid_offset, p.max_offset);
    offset_sum += p.offset_sum;
  }
  s.mean_centroid_offset = offset_sum / static_cast<double>(s.cells);
  s.neighbours_symmetric = all.symmetric;
  s.neighbours_counter_clockwise = all.counter_clockwise;
  s.triangles_consistent = all.triangles;
  s.normals_outward = all.normals;
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
