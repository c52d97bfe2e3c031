// The Williamson et al. (1992) test cases: initial conditions and analytic solutions.
#include "gpgpu/earth/cases.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::earth {

namespace {

constexpr double pi = 3.14159265358979323846;
constexpr double day = 86400.0;

// Rotates p about the unit axis by angle (Rodrigues).
Vec3 rotate(const Vec3& p, const Vec3& axis, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  return p * c + cross(axis, p) * s + axis * (dot(axis, p) * (1 - c));
}

double cosine_bell(const CaseSetup& s, const Vec3& p, double time) {
  const double u0 = 2 * pi * s.planet.radius / (12 * day);
  const Vec3 start = from_lat_lon(0.0, 1.5 * pi);
  const Vec3 centre = rotate(start, s.flow_axis(), u0 / s.planet.radius * time);
  const double r = arc_length(p, centre), radius = 1.0 / 3.0;
  return r < radius ? 500.0 * (1 + std::cos(pi * r / radius)) : 0.0;
}

double geostrophic(const CaseSetup& s, const Vec3& p) {
  const auto& pl = s.planet;
  const double u0 = 2 * pi * pl.radius / (12 * day);
  const double c = dot(p, s.flow_axis());
  return (2.94e4 - (pl.radius * pl.omega * u0 + 0.5 * u0 * u0) * c * c) / pl.gravity;
}

double mountain_flow_surface(const CaseSetup& s, const Vec3& p) {
  const auto& pl = s.planet;
  const double u0 = 20, z = p.z;
  return 5960.0 - (pl.radius * pl.omega * u0 + 0.5 * u0 * u0) * z * z / pl.gravity;
}

double rossby_haurwitz_height(const CaseSetup& s, const Vec3& p) {
  const auto& pl = s.planet;
  const double w = 7.848e-6, K = 7.848e-6, R = 4, a = pl.radius, om = pl.omega;
  const double lat = latitude(p), lon = longitude(p);
  const double c = std::cos(lat), c2 = c * c, cR = std::pow(c, R), c2R = cR * cR;
  const double A = 0.5 * w * (2 * om + w) * c2 +
                   0.25 * K * K * c2R * ((R + 1) * c2 + (2 * R * R - R - 2) - 2 * R * R / c2);
  const double B =
      2 * (om + w) * K / ((R + 1) * (R + 2)) * cR * ((R * R + 2 * R + 2) - (R + 1) * (R + 1) * c2);
  const double C = 0.25 * K * K * c2R * ((R + 1) * c2 - (R + 2));
  return 8000.0 + a * a / pl.gravity * (A + B * std::cos(R * lon) + C * std::cos(2 * R * lon));
}

Vec3 rossby_haurwitz_velocity(const CaseSetup& s, const Vec3& p) {
  const double w = 7.848e-6, K = 7.848e-6, R = 4, a = s.planet.radius;
  const double lat = latitude(p), lon = longitude(p);
  const double c = std::cos(lat), sn = std::sin(lat), cR1 = std::pow(c, R - 1);
  const double u = a * w * c + a * K * cR1 * (R * sn * sn - c * c) * std::cos(R * lon);
  const double v = -a * K * R * cR1 * sn * std::sin(R * lon);
  return east_at(lon) * u + north_at(lat, lon) * v;
}

}  // namespace

Vec3 CaseSetup::flow_axis() const {
  return {-std::sin(alpha), 0.0, std::cos(alpha)};
}
Vec3 CaseSetup::coriolis_axis() const {
  return number == 2 ? flow_axis() : Vec3{0, 0, 1};
}

std::string CaseSetup::title() const {
  switch (number) {
    case 1:
      return fmt::format("case 1 (cosine bell advection), alpha = {:.4f}", alpha);
    case 2:
      return fmt::format("case 2 (steady geostrophic flow), alpha = {:.4f}", alpha);
    case 5:
      return "case 5 (zonal flow over an isolated mountain)";
    default:
      return "case 6 (Rossby-Haurwitz wave, wavenumber 4)";
  }
}

CaseSetup make_case(int number, double alpha) {
  if (number != 1 && number != 2 && number != 5 && number != 6) {
    throw ArgumentError(fmt::format("earth: test case must be 1, 2, 5 or 6; got {}", number));
  }
  if (!std::isfinite(alpha)) throw ArgumentError("earth: alpha must be a finite angle in radians");
  if (alpha != 0 && number != 1 && number != 2) {
    throw ArgumentError(
        fmt::format("earth: alpha applies to cases 1 and 2 only; case {} got {}", number, alpha));
  }
  CaseSetup s;
  s.number = number;
  s.alpha = alpha;
  s.days = number == 1 ? 12 : number == 2 ? 5 : number == 5 ? 15 : 14;
  s.advection_only = number == 1;
  return s;
}

double case_surface(const CaseSetup& s, const Vec3& p) {
  if (s.number != 5) return 0;
  const double radius = pi / 9, lon_c = 1.5 * pi, lat_c = pi / 6;
  double dlon = longitude(p) - lon_c;
  dlon = std::remainder(dlon, 2 * pi);
  const double dlat = latitude(p) - lat_c;
  const double r = std::min(radius, std::sqrt(dlon * dlon + dlat * dlat));
  return 2000.0 * (1 - r / radius);
}

double case_height(const CaseSetup& s, const Vec3& p, double time) {
  switch (s.number) {
    case 1:
      return cosine_bell(s, p, time);
    case 2:
      return geostrophic(s, p);
    case 5:
      return mountain_flow_surface(s, p) - case_surface(s, p);
    default:
      return rossby_haurwitz_height(s, p);
  }
}

Vec3 case_velocity(const CaseSetup& s, const Vec3& p) {
  if (s.number == 6) return rossby_haurwitz_velocity(s, p);
  const double u0 = s.number == 5 ? 20.0 : 2 * pi * s.planet.radius / (12 * day);
  return cross(s.flow_axis(), p) * u0;  // solid-body rotation: u0 cos(latitude) at the equator
}

Fields initial_fields(const Grid& grid, const CaseSetup& s) {
  Fields f;
  const std::size_t n = grid.cell_count();
  f.height.resize(n);
  f.velocity.resize(n);
  f.surface.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3& p = grid.centres[i];
    f.height[i] = case_height(s, p, 0);
    f.velocity[i] = case_velocity(s, p);
    f.surface[i] = case_surface(s, p);
  }
  return f;
}

bool has_analytic_solution(const CaseSetup& s) {
  return s.number == 1 || s.number == 2;
}

std::vector<double> analytic_height(const Grid& grid, const CaseSetup& s, double time) {
  if (!has_analytic_solution(s)) {
    throw ArgumentError(
        fmt::format("earth: case {} has no analytic solution (cases 1 and 2 do)", s.number));
  }
  std::vector<double> h(grid.cell_count());
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = case_height(s, grid.centres[i], time);
  return h;
}

}  // namespace gpgpu::earth
