// Spring dynamics on the CPU in float64 (see springs.hpp).
#include <algorithm>
#include <chrono>

#include "earth/grid/parallel.hpp"
#include "earth/grid/springs.hpp"

namespace gpgpu::earth::detail {

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Two passes a sweep, the forces, then the moves: one fused pass was 30-40% slower
// (measured at levels 6 and 7, one thread: fewer of the neighbour loads are in flight at once
// in the longer loop body).
void cpu_sweeps(const SpringProblem& problem, SpringState& state, int count) {
  const Rings& rings = *problem.rings;
  const std::size_t n = state.points.size();
  std::vector<Vec3>& force = state.force_scratch;
  force.resize(n);
  std::vector<Vec3>& points = state.points;
  std::vector<Vec3>& velocity = state.velocity;
  const double natural = problem.natural_chord;
  for (int done = 0; done < count && !state.converged && state.sweeps < problem.max_sweeps;
       ++done) {
    // Points 0..11 are fixed: the loops cover n - 12 points from 12 on.
    state.force = parallel_max(n - fixed_points, [&](std::size_t b, std::size_t e) {
      double m = 0;
      for (std::size_t i = b + fixed_points; i < e + fixed_points; ++i) {
        const Vec3& p = points[i];
        Vec3 f{};
        for (int k = 0; k < rings.degree[i]; ++k) {
          const Vec3 d = points[rings.neighbours[i][k]] - p;
          const Vec3 t = tangent_part(d, p);
          f += t * ((norm(d) - natural) / norm(t));
        }
        force[i] = f;
        m = std::max(m, norm(f));
      }
      return m;
    });
    state.moved = parallel_max(n - fixed_points, [&](std::size_t b, std::size_t e) {
      double m = 0;
      for (std::size_t i = b + fixed_points; i < e + fixed_points; ++i) {
        const Vec3 v =
            tangent_part(velocity[i] * spring_momentum + force[i] * spring_step, points[i]);
        const Vec3 p = normalized(points[i] + v);
        velocity[i] = v;
        m = std::max(m, norm(p - points[i]));
        points[i] = p;
      }
      return m;
    });
    ++state.sweeps;
    state.converged = state.moved < problem.limit && state.force < problem.limit;
  }
}

}  // namespace gpgpu::earth::detail
