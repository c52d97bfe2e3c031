// device_tables: the grid's geometry as the kernels read it (see model_kernels.hpp).
#include "earth/model_geometry.hpp"

#include <bit>

namespace gpgpu::earth::detail {

namespace {

// Slot k of cell i (global), neighbours renumbered by `local`, at table index `at`.
void fill_slot(const Grid& g, std::size_t i, int k, std::size_t at, double continuity_correction,
               const std::vector<std::int32_t>& local, DeviceTables& t) {
  const bool real = k < g.degree[i];
  // A pentagon's sixth slot repeats neighbour 0 with zero weights: the kernels need no
  // branch, and neighbour 5 == neighbour 0 tells the tendency kernel it is a pentagon.
  const std::int32_t nb = local[real ? g.neighbours[i][k] : g.neighbours[i][0]];
  const Vec3 nl = real ? g.edge_normals[i][k] * g.edge_lengths[i][k] : Vec3{};
  t.slot[4 * at + 0] = std::bit_cast<std::int32_t>(static_cast<float>(nl.x));
  t.slot[4 * at + 1] = std::bit_cast<std::int32_t>(static_cast<float>(nl.y));
  t.slot[4 * at + 2] = std::bit_cast<std::int32_t>(static_cast<float>(nl.z));
  t.slot[4 * at + 3] = nb;
  t.neighbour[at] = nb;
  if (!real) return;
  const double l = g.edge_lengths[i][k], d = g.neighbour_distances[i][k], area = g.areas[i];
  t.correction[at] = static_cast<float>(continuity_correction * l * d / area);
  t.laplace[at] = static_cast<float>(l / (d * area));
}

}  // namespace

DeviceTables device_tables(const Grid& g, const CaseSetup& setup, const Fields& fields,
                           double continuity_correction, const Subdomain& domain) {
  const std::size_t n = domain.size(), m = domain.within(domain.depth - 1);
  std::vector<std::int32_t> local(g.cell_count(), -1);
  for (std::size_t l = 0; l < n; ++l) local[domain.cells[l]] = static_cast<std::int32_t>(l);
  DeviceTables t;
  t.position.resize(4 * n);
  t.slot.resize(4 * 6 * m);
  t.neighbour.resize(6 * m);
  t.correction.assign(6 * m, 0.0f);
  t.laplace.assign(6 * m, 0.0f);
  t.inv_area.resize(m);
  for (std::size_t l = 0; l < n; ++l) {
    const auto i = static_cast<std::size_t>(domain.cells[l]);
    const Vec3& r = g.centres[i];
    const double gs = setup.planet.gravity * fields.surface[i];
    for (int c = 0; c < 4; ++c) {
      const double v = c == 0 ? r.x : c == 1 ? r.y : c == 2 ? r.z : gs;
      t.position[4 * l + c] = static_cast<float>(v);
    }
    if (l >= m) continue;
    t.inv_area[l] = static_cast<float>(1.0 / (setup.planet.radius * g.areas[i]));
    for (int k = 0; k < 6; ++k)
      fill_slot(g, i, k, static_cast<std::size_t>(k) * m + l, continuity_correction, local, t);
  }
  return t;
}

std::vector<float> pack_state(const Fields& f, double mean_depth,
                              const std::vector<std::int32_t>& cells) {
  std::vector<float> s(4 * cells.size());
  for (std::size_t l = 0; l < cells.size(); ++l) {
    const auto i = static_cast<std::size_t>(cells[l]);
    s[4 * l + 0] = static_cast<float>(f.height[i] - mean_depth);
    s[4 * l + 1] = static_cast<float>(f.velocity[i].x);
    s[4 * l + 2] = static_cast<float>(f.velocity[i].y);
    s[4 * l + 3] = static_cast<float>(f.velocity[i].z);
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
