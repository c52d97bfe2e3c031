// The float64 reference operators (see gpgpu/earth/operators.hpp).
#include "gpgpu/earth/operators.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::earth {

namespace {

// Corner value at the start (k-1) and end (k) of edge k of `cell`.
template <class T>
const T& start_of(const Grid& g, const std::vector<T>& corner, std::size_t cell, int k) {
  const int m = g.degree[cell];
  return corner[g.cell_triangles[cell][(k + m - 1) % m]];
}
template <class T>
const T& end_of(const Grid& g, const std::vector<T>& corner, std::size_t cell, int k) {
  return corner[g.cell_triangles[cell][k]];
}

}  // namespace

void check_cell_count(const Grid& grid, std::size_t count, const char* what) {
  if (count != grid.cell_count()) {
    throw SizeMismatchError(fmt::format("earth: {} has {} values; the level-{} grid has {} cells",
                                        what, count, grid.level, grid.cell_count()));
  }
}

std::vector<double> corner_values(const Grid& g, std::span<const double> cells) {
  check_cell_count(g, cells.size(), "the field");
  std::vector<double> out(g.triangle_count());
  for (std::size_t t = 0; t < out.size(); ++t) {
    const auto& c = g.triangles[t];
    const auto& w = g.corner_weights[t];
    out[t] = w[0] * cells[c[0]] + w[1] * cells[c[1]] + w[2] * cells[c[2]];
  }
  return out;
}

std::vector<Vec3> corner_vectors(const Grid& g, std::span<const Vec3> cells) {
  check_cell_count(g, cells.size(), "the vector field");
  std::vector<Vec3> out(g.triangle_count());
  for (std::size_t t = 0; t < out.size(); ++t) {
    const auto& c = g.triangles[t];
    const auto& w = g.corner_weights[t];
    out[t] =
        tangent_part(cells[c[0]] * w[0] + cells[c[1]] * w[1] + cells[c[2]] * w[2], g.corners[t]);
  }
  return out;
}

std::vector<double> divergence(const Grid& g, std::span<const Vec3> field) {
  const auto corner = corner_vectors(g, field);
  std::vector<double> out(g.cell_count());
  for (std::size_t i = 0; i < out.size(); ++i) {
    double sum = 0;
    for (int k = 0; k < g.degree[i]; ++k) {
      const Vec3 mean = (start_of(g, corner, i, k) + end_of(g, corner, i, k)) * 0.5;
      sum += g.edge_lengths[i][k] * dot(g.edge_normals[i][k], mean);
    }
    out[i] = sum / g.areas[i];
  }
  return out;
}

std::vector<Vec3> gradient(const Grid& g, std::span<const double> field) {
  const auto corner = corner_values(g, field);
  std::vector<Vec3> out(g.cell_count());
  for (std::size_t i = 0; i < out.size(); ++i) {
    Vec3 sum{};
    for (int k = 0; k < g.degree[i]; ++k) {
      const double mean = 0.5 * (start_of(g, corner, i, k) + end_of(g, corner, i, k));
      sum += g.edge_normals[i][k] * (g.edge_lengths[i][k] * (mean - field[i]));
    }
    out[i] = tangent_part(sum / g.areas[i], g.centres[i]);
  }
  return out;
}

std::vector<double> curl(const Grid& g, std::span<const Vec3> field) {
  const auto corner = corner_vectors(g, field);
  std::vector<double> out(g.cell_count());
  for (std::size_t i = 0; i < out.size(); ++i) {
    double sum = 0;
    for (int k = 0; k < g.degree[i]; ++k) {
      const Vec3 mean = (start_of(g, corner, i, k) + end_of(g, corner, i, k)) * 0.5;
      sum += g.edge_lengths[i][k] * dot(g.edge_tangent(i, k), mean);
    }
    out[i] = sum / g.areas[i];
  }
  return out;
}

std::vector<double> laplacian(const Grid& g, std::span<const double> field) {
  check_cell_count(g, field.size(), "the field");
  std::vector<double> out(g.cell_count());
  for (std::size_t i = 0; i < out.size(); ++i) {
    double sum = 0;
    for (int k = 0; k < g.degree[i]; ++k) {
      const double w = g.edge_lengths[i][k] / g.neighbour_distances[i][k];
      sum += w * (field[g.neighbours[i][k]] - field[i]);
    }
    out[i] = sum / g.areas[i];
  }
  return out;
}

std::vector<Vec3> vector_laplacian(const Grid& g, std::span<const Vec3> field) {
  check_cell_count(g, field.size(), "the vector field");
  std::vector<Vec3> out(g.cell_count());
  for (std::size_t i = 0; i < out.size(); ++i) {
    Vec3 sum{};
    for (int k = 0; k < g.degree[i]; ++k) {
      const double w = g.edge_lengths[i][k] / g.neighbour_distances[i][k];
      sum += (field[g.neighbours[i][k]] - field[i]) * w;
    }
    out[i] = tangent_part(sum / g.areas[i], g.centres[i]);
  }
  return out;
}

std::vector<Vec3> coriolis(const Grid& g, std::span<const Vec3> velocity, double omega) {
  check_cell_count(g, velocity.size(), "the velocity");
  std::vector<Vec3> out(g.cell_count());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const Vec3& r = g.centres[i];
    out[i] = cross(r, velocity[i]) * (2.0 * omega * r.z);
  }
  return out;
}

}  // namespace gpgpu::earth
