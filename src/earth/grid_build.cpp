// build_grid: the mesh (grid_mesh.cpp) turned into cells with ordered neighbours, dual
// triangles and control volumes.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "earth/grid_mesh.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth {

namespace {

// Arc length of an edge of the icosahedron: atan(2).
constexpr double icosahedron_edge = 1.1071487177940905030;

void validate(const GridOptions& o) {
  if (o.level < 0 || o.level > max_grid_level) {
    throw ArgumentError(
        fmt::format("earth grid: level must be 0..{}; got {}", max_grid_level, o.level));
  }
  if (!(o.spring_beta > 0) || !(o.spring_beta < 2)) {
    throw ArgumentError(
        fmt::format("earth grid: spring_beta must be in (0, 2); got {}", o.spring_beta));
  }
  if (!(o.spring_tolerance > 0)) {
    throw ArgumentError(
        fmt::format("earth grid: spring_tolerance must be positive; got {}", o.spring_tolerance));
  }
  if (o.spring_max_sweeps < 0) {
    throw ArgumentError(
        fmt::format("earth grid: spring_max_sweeps must be >= 0; got {}", o.spring_max_sweeps));
  }
}

detail::Mesh make_mesh(const GridOptions& o) {
  detail::Mesh mesh = detail::icosahedron();
  for (int l = 1; l <= o.level; ++l) {
    mesh = detail::subdivide(mesh);
    if (o.optimization == GridOptimization::Spring) {
      const double natural = o.spring_beta * icosahedron_edge / std::ldexp(1.0, l);
      detail::relax_springs(mesh, natural, o.spring_tolerance, o.spring_max_sweeps);
    }
  }
  if (o.reorder) detail::reorder_by_morton(mesh);
  return mesh;
}

// Orders each cell's neighbours counter-clockwise: in a counter-clockwise face (a, b, c),
// c follows b around a.
void order_neighbours(Grid& g) {
  const std::size_t n = g.cell_count();
  std::vector<std::array<std::array<std::int32_t, 2>, 6>> follows(n);
  std::vector<std::uint8_t> count(n, 0);
  for (const auto& [a, b, c] : g.triangles) {
    for (const auto& [p, q, r] : {std::array{a, b, c}, std::array{b, c, a}, std::array{c, a, b}}) {
      if (count[p] >= 6) throw Error("earth grid: a point has more than six triangles");
      follows[p][count[p]++] = {q, r};
    }
  }
  g.neighbours.assign(n, {-1, -1, -1, -1, -1, -1});
  g.degree.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const int m = count[i];
    if (m != 5 && m != 6) throw Error(fmt::format("earth grid: point {} has {} triangles", i, m));
    std::int32_t current = follows[i][0][0];
    for (int k = 0; k < m; ++k) {
      g.neighbours[i][k] = current;
      const auto it = std::find_if(follows[i].begin(), follows[i].begin() + m,
                                   [&](const auto& f) { return f[0] == current; });
      current = (*it)[1];
    }
    g.degree[i] = static_cast<std::uint8_t>(m);
  }
}

// Slot k of cell a holds the triangle (a, nb k, nb k+1): in face (a, b, c) that is the slot
// whose neighbour is b.
void assign_cell_triangles(Grid& g) {
  g.cell_triangles.assign(g.cell_count(), {-1, -1, -1, -1, -1, -1});
  for (std::size_t t = 0; t < g.triangle_count(); ++t) {
    const auto [a, b, c] = g.triangles[t];
    for (const auto& [p, q] : {std::array{a, b}, std::array{b, c}, std::array{c, a}}) {
      const auto& nb = g.neighbours[p];
      const auto k = std::find(nb.begin(), nb.begin() + g.degree[p], q) - nb.begin();
      g.cell_triangles[p][k] = static_cast<std::int32_t>(t);
    }
  }
}

Vec3 corner_of(const Grid& g, const std::array<std::int32_t, 3>& t, ControlVolume cv) {
  const Vec3 &a = g.centres[t[0]], &b = g.centres[t[1]], &c = g.centres[t[2]];
  if (cv == ControlVolume::Centroid) return normalized(a + b + c);
  // Circumcentre: the normal of the plane through a, b, c, on the triangle's side.
  Vec3 n = normalized(cross(b - a, c - a));
  return dot(n, a) < 0 ? -n : n;
}

// The point where the ray to `corner` meets the plane through a, b, c, in barycentric
// coordinates: proportional to the volumes [corner b c], [a corner c], [a b corner].
std::array<double, 3> corner_weights(const Grid& g, const std::array<std::int32_t, 3>& t,
                                     const Vec3& corner, ControlVolume cv) {
  if (cv == ControlVolume::Centroid) return {1.0 / 3, 1.0 / 3, 1.0 / 3};
  const Vec3 &a = g.centres[t[0]], &b = g.centres[t[1]], &c = g.centres[t[2]];
  const double wa = triple(corner, b, c), wb = triple(a, corner, c), wc = triple(a, b, corner);
  const double sum = wa + wb + wc;
  return {wa / sum, wb / sum, wc / sum};
}

void build_geometry(Grid& g) {
  const std::size_t n = g.cell_count();
  g.corners.resize(g.triangle_count());
  g.corner_weights.resize(g.triangle_count());
  for (std::size_t t = 0; t < g.triangle_count(); ++t) {
    g.corners[t] = corner_of(g, g.triangles[t], g.options.control_volume);
    g.corner_weights[t] = corner_weights(g, g.triangles[t], g.corners[t], g.options.control_volume);
  }
  g.areas.assign(n, 0.0);
  g.edge_lengths.assign(n, {});
  g.edge_normals.assign(n, {});
  g.neighbour_distances.assign(n, {});
  for (std::size_t i = 0; i < n; ++i) {
    for (int k = 0; k < g.degree[i]; ++k) {
      const Vec3 &s = g.edge_start(i, k), &e = g.edge_end(i, k);
      g.areas[i] += spherical_triangle_area(g.centres[i], s, e);
      g.edge_lengths[i][k] = arc_length(s, e);
      // For a counter-clockwise boundary, end x start points away from the cell.
      g.edge_normals[i][k] = normalized(cross(e, s));
      g.neighbour_distances[i][k] = arc_length(g.centres[i], g.centres[g.neighbours[i][k]]);
    }
  }
}

}  // namespace

std::size_t cell_count_at(int level) {
  if (level < 0 || level > max_grid_level) {
    throw ArgumentError(
        fmt::format("earth grid: level must be 0..{}; got {}", max_grid_level, level));
  }
  return 10 * (std::size_t{1} << (2 * level)) + 2;
}

std::size_t Grid::edge_count() const {
  std::size_t twice = 0;
  for (auto d : degree) twice += d;
  return twice / 2;
}

const Vec3& Grid::edge_start(std::size_t cell, int k) const {
  const int m = degree[cell];
  return corners[cell_triangles[cell][(k + m - 1) % m]];
}
const Vec3& Grid::edge_end(std::size_t cell, int k) const {
  return corners[cell_triangles[cell][k]];
}
Vec3 Grid::edge_midpoint(std::size_t cell, int k) const {
  return normalized(edge_start(cell, k) + edge_end(cell, k));
}
Vec3 Grid::edge_tangent(std::size_t cell, int k) const {
  return cross(edge_midpoint(cell, k), edge_normals[cell][k]);
}

Vec3 control_volume_centroid(const Grid& g, std::size_t cell) {
  Vec3 moment{};
  for (int k = 0; k < g.degree[cell]; ++k)
    moment -= g.edge_normals[cell][k] * g.edge_lengths[cell][k];
  return normalized(moment);
}

Grid build_grid(const GridOptions& options) {
  validate(options);
  detail::Mesh mesh = make_mesh(options);
  Grid g;
  g.level = options.level;
  g.options = options;
  g.centres = std::move(mesh.points);
  g.triangles = std::move(mesh.faces);
  order_neighbours(g);
  assign_cell_triangles(g);
  build_geometry(g);
  if (options.recentre) {
    std::vector<Vec3> moved(g.cell_count());
    for (std::size_t i = 0; i < g.cell_count(); ++i) moved[i] = control_volume_centroid(g, i);
    g.centres = std::move(moved);
    build_geometry(g);
  }
  return g;
}

}  // namespace gpgpu::earth
