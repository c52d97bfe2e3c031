// Shared by the earth tests: grids built once per process, and analytic fields: a smooth scalar psi
// on the sphere (harmonics of degree 3 and 4 seen in a randomly rotated frame, fresh per run), its
// surface gradient, its rotated gradient r x grad psi, and its surface Laplacian.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <string>

#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/earth/vec3.hpp"
#include "test_support.hpp"

namespace gpgpu::earth::test {

// The grid of a level, built once per test process.
inline const Grid& grid_at(int level) {
  static std::map<int, Grid> cache;
  auto it = cache.find(level);
  if (it == cache.end()) {
    GridOptions o;
    o.level = level;
    o.device = GridDevice::Cpu;  // the same grid on every machine, without a GPU trial
    it = cache.emplace(level, build_grid(o)).first;
  }
  return it->second;
}

class HarmonicField {
 public:
  explicit HarmonicField(std::mt19937& rng) {
    std::uniform_real_distribution<double> angle(0.0, 6.283185307179586);
    const double a = angle(rng), b = angle(rng), c = angle(rng);
    // Rotation matrix R = Rz(a) Rx(b) Rz(c).
    const std::array<std::array<double, 3>, 3> rz1{
        {{std::cos(a), -std::sin(a), 0}, {std::sin(a), std::cos(a), 0}, {0, 0, 1}}};
    const std::array<std::array<double, 3>, 3> rx{
        {{1, 0, 0}, {0, std::cos(b), -std::sin(b)}, {0, std::sin(b), std::cos(b)}}};
    const std::array<std::array<double, 3>, 3> rz2{
        {{std::cos(c), -std::sin(c), 0}, {std::sin(c), std::cos(c), 0}, {0, 0, 1}}};
    r_ = multiply(multiply(rz1, rx), rz2);
  }

  // psi = xyz + (x^4 - 6 x^2 y^2 + y^4) / 2 in the rotated frame: harmonic polynomials of
  // degree 3 and 4, so the surface Laplacian is -12 xyz - 20 (x^4 - 6 x^2 y^2 + y^4) / 2.
  double value(const Vec3& p) const {
    const Vec3 q = rotate(p);
    return q.x * q.y * q.z + 0.5 * quartic(q);
  }
  double laplacian(const Vec3& p) const {
    const Vec3 q = rotate(p);
    return -12 * q.x * q.y * q.z - 10 * quartic(q);
  }
  // Tangent part of the 3-D gradient, taken back to the original frame.
  Vec3 gradient(const Vec3& p) const {
    const Vec3 q = rotate(p);
    const Vec3 g{q.y * q.z + 2 * q.x * q.x * q.x - 6 * q.x * q.y * q.y,
                 q.x * q.z - 6 * q.x * q.x * q.y + 2 * q.y * q.y * q.y, q.x * q.y};
    return tangent_part(rotate_back(g), p);
  }
  Vec3 rotated_gradient(const Vec3& p) const { return cross(p, gradient(p)); }

 private:
  using Matrix = std::array<std::array<double, 3>, 3>;
  static Matrix multiply(const Matrix& a, const Matrix& b) {
    Matrix m{};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) m[i][j] += a[i][k] * b[k][j];
    return m;
  }
  static double quartic(const Vec3& q) {
    return q.x * q.x * q.x * q.x - 6 * q.x * q.x * q.y * q.y + q.y * q.y * q.y * q.y;
  }
  Vec3 rotate(const Vec3& p) const {
    return {r_[0][0] * p.x + r_[0][1] * p.y + r_[0][2] * p.z,
            r_[1][0] * p.x + r_[1][1] * p.y + r_[1][2] * p.z,
            r_[2][0] * p.x + r_[2][1] * p.y + r_[2][2] * p.z};
  }
  Vec3 rotate_back(const Vec3& v) const {
    return {r_[0][0] * v.x + r_[1][0] * v.y + r_[2][0] * v.z,
            r_[0][1] * v.x + r_[1][1] * v.y + r_[2][1] * v.z,
            r_[0][2] * v.x + r_[1][2] * v.y + r_[2][2] * v.z};
  }
  Matrix r_{};
};

// Perturbs the case's fields with fresh random smooth noise so the tendency is far from the
// balanced state's small value and every term matters.
inline Fields perturbed(const Grid& g, const CaseSetup& setup) {
  Fields f = initial_fields(g, setup);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  const Vec3 k{d(gpgpu::test::rng()), d(gpgpu::test::rng()), d(gpgpu::test::rng())};
  const double phase = d(gpgpu::test::rng());
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    const Vec3& r = g.centres[i];
    const double wave = std::sin(3 * dot(k, r) + phase);
    f.height[i] += 20 * wave;
    if (!setup.advection_only)
      f.velocity[i] += tangent_part(Vec3{wave, -wave, 0.5 * wave}, r) * 2.0;
  }
  return f;
}

// The first cell where `got` differs from `want` by more than float32 rounding of 3 steps,
// described, or "" when none does. Each stage rounds each term to float32 (eps32 = 6e-8
// relative); 3 steps of 4 stages of some tens of terms stay within 1e-6 of a value (measured
// 2.2e-7 for h, 5e-7 of the largest velocity for u), or a sub-millimetre depth where h
// crosses zero.
inline std::string three_steps_disagreement(const Fields& got, const Fields& want) {
  double umax = 0;
  for (const auto& u : want.velocity) umax = std::max(umax, norm(u));
  for (std::size_t i = 0; i < want.height.size(); ++i) {
    const double dh = std::abs(got.height[i] - want.height[i]);
    const double du = norm(got.velocity[i] - want.velocity[i]);
    if (dh > 1e-6 * std::abs(want.height[i]) + 1e-3 || du > 1e-5 * umax) {
      return "cell " + std::to_string(i) + ": h " + std::to_string(got.height[i]) + " against " +
             std::to_string(want.height[i]) + ", |du| " + std::to_string(du) + " of umax " +
             std::to_string(umax);
    }
  }
  return "";
}

}  // namespace gpgpu::earth::test
