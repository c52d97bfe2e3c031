// ReferenceModel: the float64 CPU shallow-water model (see gpgpu/earth/reference.hpp).
#include "gpgpu/earth/reference.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpgpu/earth/operators.hpp"
#include "gpgpu/earth/options.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth {

ReferenceModel::ReferenceModel(const Grid& grid, const CaseSetup& setup,
                               const ModelOptions& options)
    : grid_(grid), setup_(setup), options_(options), fields_(initial_fields(grid, setup)) {
  validate(options);
  max_dt_ = model_time_step(grid, setup, fields_, options);
  nu_ = hyperdiffusion_coefficient(grid, setup, options);
}

void ReferenceModel::tendency(const std::vector<double>& h, const std::vector<Vec3>& u,
                              std::vector<double>& dh, std::vector<Vec3>& du) const {
  const Grid& g = grid_;
  const std::size_t n = g.cell_count();
  const double a = setup_.planet.radius, grav = setup_.planet.gravity;
  const Vec3 axis = setup_.coriolis_axis();
  std::vector<double> phi(n);
  for (std::size_t i = 0; i < n; ++i) {
    phi[i] = grav * (h[i] + fields_.surface[i]) + 0.5 * dot(u[i], u[i]);
  }
  const auto hc = corner_values(g, h);
  const auto uc = corner_vectors(g, u);
  const auto pc = corner_values(g, phi);
  dh.assign(n, 0.0);
  du.assign(n, Vec3{});
  for (std::size_t i = 0; i < n; ++i) {
    const int m = g.degree[i];
    double div = 0, circulation = 0;
    Vec3 grad{};
    for (int k = 0; k < m; ++k) {
      const std::size_t s = g.cell_triangles[i][(k + m - 1) % m], e = g.cell_triangles[i][k];
      const Vec3 nl = g.edge_normals[i][k] * g.edge_lengths[i][k];
      div += 0.5 * dot(nl, uc[s] * hc[s] + uc[e] * hc[e]);
      if (setup_.advection_only) continue;
      const Vec3 tl = cross(normalized(g.corners[s] + g.corners[e]), nl);
      circulation += 0.5 * dot(tl, uc[s] + uc[e]);
      grad += nl * (0.5 * (pc[s] + pc[e]) - phi[i]);
    }
    const double scale = 1.0 / (a * g.areas[i]);
    dh[i] = -div * scale;
    if (setup_.advection_only) continue;
    const Vec3& r = g.centres[i];
    const double zeta = circulation * scale, f = 2 * setup_.planet.omega * dot(r, axis);
    du[i] = tangent_part(cross(r, u[i]) * -(zeta + f) - grad * scale, r);
  }
  if (options_.continuity_correction > 0) {
    std::vector<double> raw = dh;
    for (std::size_t i = 0; i < n; ++i) {
      double sum = 0;
      for (int k = 0; k < g.degree[i]; ++k) {
        sum +=
            g.edge_lengths[i][k] * g.neighbour_distances[i][k] * (raw[g.neighbours[i][k]] - raw[i]);
      }
      dh[i] = raw[i] - options_.continuity_correction * sum / g.areas[i];
    }
  }
}

void ReferenceModel::diffuse(double dt) {
  if (nu_ <= 0) return;
  const double a = setup_.planet.radius;
  const double factor = dt * nu_ / (a * a * a * a);
  const auto lh = laplacian(grid_, laplacian(grid_, fields_.height));
  const auto lu = vector_laplacian(grid_, vector_laplacian(grid_, fields_.velocity));
  for (std::size_t i = 0; i < grid_.cell_count(); ++i) {
    fields_.height[i] -= factor * lh[i];
    fields_.velocity[i] = tangent_part(fields_.velocity[i] - lu[i] * factor, grid_.centres[i]);
  }
}

void ReferenceModel::step(double dt) {
  const std::size_t n = grid_.cell_count();
  const auto& h0 = fields_.height;
  const auto& u0 = fields_.velocity;
  std::vector<double> h = h0, acc_h = h0, dh;
  std::vector<Vec3> u = u0, acc_u = u0, du;
  constexpr double next[3] = {0.5, 0.5, 1.0};
  constexpr double weight[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  for (int stage = 0; stage < 4; ++stage) {
    tendency(h, u, dh, du);
    for (std::size_t i = 0; i < n; ++i) {
      acc_h[i] += weight[stage] * dt * dh[i];
      acc_u[i] += du[i] * (weight[stage] * dt);
      if (stage < 3) {
        h[i] = h0[i] + next[stage] * dt * dh[i];
        u[i] = u0[i] + du[i] * (next[stage] * dt);
      }
    }
  }
  fields_.height = std::move(acc_h);
  fields_.velocity = std::move(acc_u);
  diffuse(dt);
  time_ += dt;
}

void ReferenceModel::run(double seconds) {
  const long long steps = steps_for(seconds, max_dt_);
  for (long long s = 0; s < steps; ++s) step(seconds / static_cast<double>(steps));
}

}  // namespace gpgpu::earth
