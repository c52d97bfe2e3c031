// The Grid's accessors, cell_count_at and control_volume_centroid.
#include <fmt/format.h>

#include "gpgpu/earth/grid.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth {

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

}  // namespace gpgpu::earth
