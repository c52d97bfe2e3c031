// gpgpu/earth/reference.hpp — the shallow-water model in float64 on the CPU.
//
//   gpgpu::earth::ReferenceModel model(grid, gpgpu::earth::make_case(2), {});
//   model.run(86400.0);                       // one day, time step from the CFL condition
//   const auto& h = model.fields().height;
//
// The same discretisation as the GPU model (gpgpu/earth/model.hpp), operator by operator
// and stage by stage, in float64: the tests compare the GPU kernels with it, and it answers
// what float32 costs. Single-threaded; levels up to about 6 run in reasonable time.
//
// The equations (vector-invariant form, 3-D Cartesian velocity, radius a):
//   dh/dt = -(1/a) div(h u)
//   du/dt = P( -(zeta + f) r x u - (1/a) grad(g (h + h_s) + |u|^2 / 2) ),
//   zeta = (1/a) curl(u), f = 2 Omega (r . axis), P the projection onto the tangent plane;
// case 1 integrates the first equation only. The height tendency gets the fourth-order
// correction of ModelOptions::continuity_correction. Classical 4-stage Runge-Kutta in time,
// then the hyperdiffusion -nu del^4 applied to h and u as a forward-Euler step after each
// step (see gpgpu/earth/options.hpp).
#pragma once

#include <vector>

#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/earth/options.hpp"

namespace gpgpu::earth {

// The same model as Model, in float64 on the CPU: the reference the GPU model is tested
// against. The grid must outlive it.
class ReferenceModel {
 public:
  // The case's initial state on `grid`, with the time step from `options`.
  ReferenceModel(const Grid& grid, const CaseSetup& setup, const ModelOptions& options);

  // Advances by `seconds` in whole steps of at most the CFL step (the last steps equal).
  void run(double seconds);
  // One Runge-Kutta step of dt seconds (plus hyperdiffusion).
  void step(double dt);

  // Tendencies (dh/dt, du/dt) of the fields given, without hyperdiffusion.
  void tendency(const std::vector<double>& h, const std::vector<Vec3>& u, std::vector<double>& dh,
                std::vector<Vec3>& du) const;
  // Hyperdiffusion step: q -= dt nu del^4 q for h and u.
  void diffuse(double dt);

  // @{
  // The current state.
  const Fields& fields() const { return fields_; }
  Fields& fields() { return fields_; }
  // @}
  double time() const { return time_; }             // simulated seconds so far
  double max_time_step() const { return max_dt_; }  // the CFL step
  const CaseSetup& setup() const { return setup_; }  // the test case

 private:
  const Grid& grid_;
  CaseSetup setup_;
  ModelOptions options_;
  Fields fields_;
  double time_ = 0, max_dt_ = 0, nu_ = 0;
};

}  // namespace gpgpu::earth
