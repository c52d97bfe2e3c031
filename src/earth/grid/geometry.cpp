// Control volumes of the grid (see geometry.hpp and grid.hpp).
#include "earth/grid/geometry.hpp"

#include "earth/grid/parallel.hpp"

namespace gpgpu::earth::detail {

namespace {

Vec3 corner_of(const Grid& g, const Triangle& t, ControlVolume cv) {
  const Vec3 &a = g.centres[t[0]], &b = g.centres[t[1]], &c = g.centres[t[2]];
  if (cv == ControlVolume::Centroid) return normalized(a + b + c);
  // Circumcentre: the normal of the plane through a, b, c, on the triangle's side.
  Vec3 n = normalized(cross(b - a, c - a));
  return dot(n, a) < 0 ? -n : n;
}

// The point where the ray to `corner` meets the plane through a, b, c, in barycentric
// coordinates: proportional to the volumes [corner b c], [a corner c], [a b corner].
std::array<double, 3> corner_weights(const Grid& g, const Triangle& t, const Vec3& corner,
                                     ControlVolume cv) {
  if (cv == ControlVolume::Centroid) return {1.0 / 3, 1.0 / 3, 1.0 / 3};
  const Vec3 &a = g.centres[t[0]], &b = g.centres[t[1]], &c = g.centres[t[2]];
  const double wa = triple(corner, b, c), wb = triple(a, corner, c), wc = triple(a, b, corner);
  const double sum = wa + wb + wc;
  return {wa / sum, wb / sum, wc / sum};
}

// The slot of cell i in cell j's ring.
int slot_of(const Grid& g, std::size_t j, std::size_t i) {
  int k = 0;
  while (k + 1 < g.degree[j] && g.neighbours[j][k] != static_cast<std::int32_t>(i)) ++k;
  return k;
}

// Cell i's area, and the edges it shares with higher-numbered neighbours, for both cells:
// an edge's length and the distance across it are the same from either side, and its
// normal is exactly negated (cross(s, e) = -cross(e, s)), so each edge is computed once.
void cell_geometry(Grid& g, std::size_t i) {
  double area = 0;
  for (int k = 0; k < g.degree[i]; ++k) {
    const Vec3 &s = g.edge_start(i, k), &e = g.edge_end(i, k);
    area += spherical_triangle_area(g.centres[i], s, e);
    const auto j = static_cast<std::size_t>(g.neighbours[i][k]);
    if (j < i) continue;
    const int back = slot_of(g, j, i);
    g.edge_lengths[i][k] = g.edge_lengths[j][back] = arc_length(s, e);
    // For a counter-clockwise boundary, end x start points away from the cell.
    g.edge_normals[i][k] = normalized(cross(e, s));
    g.edge_normals[j][back] = -g.edge_normals[i][k];
    g.neighbour_distances[i][k] = g.neighbour_distances[j][back] =
        arc_length(g.centres[i], g.centres[j]);
  }
  g.areas[i] = area;
}

}  // namespace

void assign_rings(Grid& grid) {
  Rings r = rings(grid.centres.size(), grid.triangles);
  grid.neighbours = std::move(r.neighbours);
  grid.cell_triangles = std::move(r.faces);
  grid.degree = std::move(r.degree);
}

void build_geometry(Grid& g) {
  const std::size_t n = g.cell_count(), triangles = g.triangle_count();
  const ControlVolume cv = g.options.control_volume;
  g.corners.resize(triangles);
  g.corner_weights.resize(triangles);
  parallel_for(triangles, [&](std::size_t b, std::size_t e) {
    for (std::size_t t = b; t < e; ++t) {
      g.corners[t] = corner_of(g, g.triangles[t], cv);
      g.corner_weights[t] = corner_weights(g, g.triangles[t], g.corners[t], cv);
    }
  });
  g.areas.resize(n);
  g.edge_lengths.assign(n, {});
  g.edge_normals.assign(n, {});
  g.neighbour_distances.assign(n, {});
  parallel_for(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) cell_geometry(g, i);
  });
}

void recentre(Grid& g) {
  std::vector<Vec3> moved(g.cell_count());
  parallel_for(g.cell_count(), [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) moved[i] = control_volume_centroid(g, i);
  });
  g.centres = std::move(moved);
  build_geometry(g);
}

}  // namespace gpgpu::earth::detail
