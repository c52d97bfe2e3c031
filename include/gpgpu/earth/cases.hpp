// gpgpu/earth/cases.hpp — the Williamson et al. (1992) shallow-water test cases 1, 2, 5, 6.
//
//   gpgpu::earth::CaseSetup setup = gpgpu::earth::make_case(2);     // alpha = 0
//   gpgpu::earth::Fields start = gpgpu::earth::initial_fields(grid, setup);
//   std::vector<double> exact = gpgpu::earth::analytic_height(grid, setup, 5 * 86400.0);
//
// Reference: D. L. Williamson, J. B. Drake, J. J. Hack, R. Jakob, P. N. Swarztrauber, "A
// standard test set for numerical approximations to the shallow water equations in
// spherical geometry", J. Comput. Phys. 102 (1992) 211-224. Constants are the paper's:
//   a = 6.37122e6 m, Omega = 7.292e-5 1/s, g = 9.80616 m/s^2.
//   1  cosine bell advected once round the globe in 12 days by solid-body rotation about an
//      axis tilted by alpha from the pole (h0 = 1000 m, R = a/3, centre (3 pi/2, 0));
//      only the height equation is integrated, the wind is prescribed.
//   2  steady zonal geostrophic flow, u0 = 2 pi a / 12 days, g h0 = 2.94e4 m^2/s^2; for
//      alpha != 0 the Coriolis parameter is tilted with the flow (f = 2 Omega r . axis).
//   5  zonal flow over an isolated conical mountain (u0 = 20 m/s, h0 = 5960 m, mountain
//      2000 m high, radius pi/9, centred at (3 pi/2, pi/6)); 15 days.
//   6  Rossby-Haurwitz wave of wavenumber 4 (omega = K = 7.848e-6 1/s, h0 = 8000 m); 14 days.
// Heights here are the fluid depth h (the free surface is h + surface); velocities are 3-D
// Cartesian vectors in m/s tangent to the sphere.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "gpgpu/earth/grid.hpp"

namespace gpgpu::earth {

// The planet's constants (Williamson et al.'s, the Earth's by default).
struct Planet {
  double radius = 6.37122e6;  // m
  double omega = 7.292e-5;    // 1/s
  double gravity = 9.80616;   // m/s^2
};

// One of Williamson et al.'s (1992) shallow-water test cases and its parameters.
struct CaseSetup {
  int number = 2;    // 1, 2, 5 or 6
  double alpha = 0;  // radians: tilt of the flow's rotation axis (cases 1 and 2)
  Planet planet;                // radius, rotation, gravity
  double days = 5;              // the paper's integration length
  bool advection_only = false;  // case 1: the wind is held fixed
  // The flow's rotation axis (-sin alpha, 0, cos alpha) and the Coriolis axis (the same for
  // case 2, the pole otherwise).
  Vec3 flow_axis() const;
  Vec3 coriolis_axis() const;  // (above)
  std::string title() const;  // "case 2 (steady geostrophic flow), alpha = 0"
};

// The setup of case 1, 2, 5 or 6 with the paper's length. Throws ArgumentError for another
// number or a non-finite alpha.
CaseSetup make_case(int number, double alpha = 0);

// The model's state per cell: depth, velocity (a tangent vector) and bottom topography.
struct Fields {
  std::vector<double> height;   // fluid depth h, m
  std::vector<Vec3> velocity;   // m/s
  std::vector<double> surface;  // bottom topography, m (zero except case 5)
};

// The case's initial state at the grid's cells.
Fields initial_fields(const Grid& grid, const CaseSetup& setup);

// Fluid depth of the analytic solution at time t (s), at the cells: cases 1 and 2 only
// (case 2 is steady). Throws ArgumentError for the other cases, which have none.
std::vector<double> analytic_height(const Grid& grid, const CaseSetup& setup, double time);
bool has_analytic_solution(const CaseSetup& setup);  // cases 1 and 2

// @{
// Pointwise versions, at a unit vector: depth (at `time`), velocity and topography.
double case_height(const CaseSetup& setup, const Vec3& p, double time = 0);
Vec3 case_velocity(const CaseSetup& setup, const Vec3& p);
double case_surface(const CaseSetup& setup, const Vec3& p);
// @}

}  // namespace gpgpu::earth
