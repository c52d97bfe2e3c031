// device_tables: the grid's geometry as the kernels read it (see model_kernels.hpp).
#include "earth/model_geometry.hpp"

#include <bit>

namespace gpgpu::earth::detail {

DeviceTables device_tables(const Grid& g, const CaseSetup& setup, const Fields& fields,
                           double continuity_correction) {
  const std::size_t n = g.cell_count();
  DeviceTables t;
  t.position.resize(4 * n);
  t.slot.resize(4 * 6 * n);
  t.neighbour.resize(6 * n);
  t.correction.assign(6 * n, 0.0f);
  t.laplace.assign(6 * n, 0.0f);
  t.inv_area.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3& r = g.centres[i];
    const double gs = setup.planet.gravity * fields.surface[i];
    for (int c = 0; c < 4; ++c) {
      const double v = c == 0 ? r.x : c == 1 ? r.y : c == 2 ? r.z : gs;
      t.position[4 * i + c] = static_cast<float>(v);
    }
    t.inv_area[i] = static_cast<float>(1.0 / (setup.planet.radius * g.areas[i]));
    for (int k = 0; k < 6; ++k) {
      const std::size_t at = static_cast<std::size_t>(k) * n + i;
      const bool real = k < g.degree[i];
      // A pentagon's sixth slot repeats neighbour 0 with zero weights: the kernels need no
      // branch, and neighbour 5 == neighbour 0 tells the tendency kernel it is a pentagon.
      const std::int32_t nb = real ? g.neighbours[i][k] : g.neighbours[i][0];
      const Vec3 nl = real ? g.edge_normals[i][k] * g.edge_lengths[i][k] : Vec3{};
      t.slot[4 * at + 0] = std::bit_cast<std::int32_t>(static_cast<float>(nl.x));
      t.slot[4 * at + 1] = std::bit_cast<std::int32_t>(static_cast<float>(nl.y));
      t.slot[4 * at + 2] = std::bit_cast<std::int32_t>(static_cast<float>(nl.z));
      t.slot[4 * at + 3] = nb;
      t.neighbour[at] = nb;
      if (!real) continue;
      const double l = g.edge_lengths[i][k], d = g.neighbour_distances[i][k], area = g.areas[i];
      t.correction[at] = static_cast<float>(continuity_correction * l * d / area);
      t.laplace[at] = static_cast<float>(l / (d * area));
    }
  }
  return t;
}

std::vector<float> pack_state(const Fields& f, double mean_depth) {
  std::vector<float> s(4 * f.height.size());
  for (std::size_t i = 0; i < f.height.size(); ++i) {
    s[4 * i + 0] = static_cast<float>(f.height[i] - mean_depth);
    s[4 * i + 1] = static_cast<float>(f.velocity[i].x);
    s[4 * i + 2] = static_cast<float>(f.velocity[i].y);
    s[4 * i + 3] = static_cast<float>(f.velocity[i].z);
  }
  return s;
}

double area_mean(const Grid& g, const std::vector<double>& values) {
  double sum = 0, area = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    sum += g.areas[i] * values[i];
    area += g.areas[i];
  }
  return sum / area;
}

}  // namespace gpgpu::earth::detail
