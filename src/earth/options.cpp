// Time step, hyperdiffusion coefficient and spacing of the model (gpgpu/earth/options.hpp).
#include "gpgpu/earth/options.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::earth {

namespace {
constexpr double pi = 3.14159265358979323846;
}

void validate(const ModelOptions& o) {
  if (!(o.courant > 0) || !std::isfinite(o.courant)) {
    throw ArgumentError(fmt::format("earth: courant must be a positive number; got {}", o.courant));
  }
  if (!(o.continuity_correction >= 0) || !(o.continuity_correction < 1)) {
    throw ArgumentError(fmt::format("earth: continuity_correction must be in [0, 1); got {}",
                                    o.continuity_correction));
  }
  if (!(o.diffusion_time >= 0) || !std::isfinite(o.diffusion_time)) {
    throw ArgumentError(
        fmt::format("earth: diffusion_time must be >= 0 seconds; got {}", o.diffusion_time));
  }
  if (!(o.time_step >= 0) || !std::isfinite(o.time_step)) {
    throw ArgumentError(fmt::format("earth: time_step must be >= 0 seconds; got {}", o.time_step));
  }
  if (o.work_group_size < 32 || o.work_group_size > 1024 || o.work_group_size % 32 != 0) {
    throw ArgumentError(fmt::format(
        "earth: work_group_size must be a multiple of 32 in 32..1024; got {}", o.work_group_size));
  }
  if (o.one_dispatch_groups < 0 || o.one_dispatch_groups > 65535) {
    throw ArgumentError(
        fmt::format("earth: one_dispatch_groups must be in 1..65535 (0: chosen); got {}",
                    o.one_dispatch_groups));
  }
  if (o.one_dispatch_polls < 0) {
    throw ArgumentError(fmt::format("earth: one_dispatch_polls must be >= 1 (0: chosen); got {}",
                                    o.one_dispatch_polls));
  }
  if (o.halo_steps < 0 || o.halo_steps > 16) {
    throw ArgumentError(
        fmt::format("earth: halo_steps must be in 1..16 (0: chosen); got {}", o.halo_steps));
  }
  if (o.halo_steps > 1 && !o.halo_per_step) {
    throw ArgumentError(
        fmt::format("earth: halo_steps {} needs the halo swapped per step, not before every stage",
                    o.halo_steps));
  }
}

double mean_spacing(const Grid& g) {
  double sum = 0;
  std::size_t count = 0;
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    for (int k = 0; k < g.degree[i]; ++k) sum += g.neighbour_distances[i][k];
    count += g.degree[i];
  }
  return sum / static_cast<double>(count);
}

double min_spacing(const Grid& g) {
  double m = 1e300;
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    for (int k = 0; k < g.degree[i]; ++k) m = std::min(m, g.neighbour_distances[i][k]);
  }
  return m;
}

double cfl_time_step(const Grid& grid, const CaseSetup& setup, const Fields& f, double courant) {
  if (!(courant > 0))
    throw ArgumentError(fmt::format("earth: courant must be positive; got {}", courant));
  double fastest = 0;
  for (std::size_t i = 0; i < grid.cell_count(); ++i) {
    const double wave =
        setup.advection_only ? 0.0 : std::sqrt(setup.planet.gravity * std::max(f.height[i], 0.0));
    fastest = std::max(fastest, norm(f.velocity[i]) + wave);
  }
  if (!(fastest > 0))
    throw ArgumentError("earth: the fields are at rest; give ModelOptions::time_step");
  return courant * min_spacing(grid) * setup.planet.radius / fastest;
}

double model_time_step(const Grid& grid, const CaseSetup& setup, const Fields& fields,
                       const ModelOptions& options) {
  return options.time_step > 0 ? options.time_step
                               : cfl_time_step(grid, setup, fields, options.courant);
}

double hyperdiffusion_coefficient(const Grid& grid, const CaseSetup& setup, const ModelOptions& o) {
  if (o.diffusion_time <= 0 || setup.advection_only) return 0;
  const double dx = mean_spacing(grid) * setup.planet.radius / pi;
  return dx * dx * dx * dx / o.diffusion_time;
}

long long steps_for(double seconds, double max_step) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) {
    throw ArgumentError(fmt::format("earth: run length must be >= 0 seconds; got {}", seconds));
  }
  return static_cast<long long>(std::ceil(seconds / max_step - 1e-9));
}

}  // namespace gpgpu::earth
