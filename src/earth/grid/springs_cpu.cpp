// Spring dynamics on the CPU in float64 (see springs.hpp).
#include <algorithm>
#include <chrono>

#include "earth/grid/parallel.hpp"
#include "earth/grid/springs.hpp"

namespace gpgpu::earth::detail {

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace {

// One sweep of point i from the positions `points` (Jacobi): its new position in `next`,
// its velocity updated; returns the size of its force and of its move.
std::array<double, 2> sweep_point(const Rings& rings, double natural, std::size_t i,
                                  const std::vector<Vec3>& points, std::vector<Vec3>& next,
                                  Vec3& velocity) {
  const Vec3& p = points[i];
  Vec3 f{};
  for (int k = 0; k < rings.degree[i]; ++k) {
    const Vec3 d = points[rings.neighbours[i][k]] - p;
    const Vec3 t = tangent_part(d, p);
    f += t * ((norm(d) - natural) / norm(t));
  }
  velocity = tangent_part(velocity * spring_momentum + f * spring_step, p);
  next[i] = normalized(p + velocity);
  return {norm(f), norm(next[i] - p)};
}

}  // namespace

void cpu_sweeps(const SpringProblem& problem, SpringState& state, int count) {
  const std::size_t n = state.points.size();
  std::vector<Vec3> next = state.points;  // the fixed points are copied once
  for (int done = 0; done < count && !state.converged && state.sweeps < problem.max_sweeps;
       ++done) {
    // Points 0..11 are fixed: the loop covers n - 12 points from 12 on.
    const auto [force, moved] = parallel_max(n - fixed_points, [&](std::size_t b, std::size_t e) {
      std::array<double, 2> m{0, 0};
      for (std::size_t i = b + fixed_points; i < e + fixed_points; ++i) {
        m = largest(m, sweep_point(*problem.rings, problem.natural_chord, i, state.points, next,
                                   state.velocity[i]));
      }
      return m;
    });
    state.points.swap(next);
    state.force = force;
    state.moved = moved;
    ++state.sweeps;
    state.converged = state.moved < problem.limit && state.force < problem.limit;
  }
}

}  // namespace gpgpu::earth::detail
