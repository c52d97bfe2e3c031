// Internal: spring dynamics (Tomita, Satoh and Goto 2002) on one level of the mesh, on the
// CPU in float64 (springs_cpu.cpp) or on the GPU in float32 (springs_gpu.cpp), with the
// level's driver choosing between them (springs.cpp).
//
// Every edge is a spring of natural length L; the twelve icosahedron corners stay fixed.
// The iteration is heavy-ball relaxation, velocity <- momentum * velocity + step * force,
// the damped dynamics of the paper in iteration form: momentum makes the large scales
// converge in O(2^level) sweeps instead of O(4^level). A sweep computes every force from
// the positions before it (Jacobi), so it is one data-parallel pass over the points.
// Springs are measured along chords (the same equilibrium as arcs of length L to
// O(spacing^3), at a third of the cost of atan2). It stops when no point moves more than
// `limit` in a sweep and no force exceeds `limit` (limit = tolerance * L).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "earth/grid/device_choice.hpp"
#include "earth/grid/mesh.hpp"
#include "gpgpu/earth/grid.hpp"

namespace gpgpu {
class Context;
}

namespace gpgpu::earth::detail {
class GpuSprings;
}

namespace gpgpu::earth::detail {

inline constexpr double spring_step = 0.1, spring_momentum = 0.9;
inline constexpr std::size_t fixed_points = 12;

struct SpringProblem {
  const Rings* rings = nullptr;
  double natural_chord = 0;  // 2 sin(L / 2)
  double limit = 0;          // tolerance * L
  int max_sweeps = 0;
};

struct SpringState {
  std::vector<Vec3> points, velocity;
  std::vector<Vec3> force_scratch;  // the CPU's forces, kept between calls
  int sweeps = 0;                   // taken so far on this level
  double force = 0, moved = 0;      // the largest of the last sweep
  bool converged = false;
};

// Float64 sweeps on the CPU (the shared worker threads) until converged, max_sweeps sweeps
// in all, or `count` more sweeps.
void cpu_sweeps(const SpringProblem& problem, SpringState& state, int count);

// Relaxes each level of a build on the device GridOptions::device names (grid.hpp): the
// CPU; the GPU, checked by float64 sweeps on the CPU until the float64 test passes; or, for
// Auto from level 6 on, whichever a few timed sweeps on each found faster (timed once a
// machine and level, device_choice.hpp).
class SpringDriver {
 public:
  // `gpu`: the Context to run on; null makes one on first need (the default device).
  SpringDriver(GridDevice device, const Context* gpu);
  ~SpringDriver();
  SpringDriver(const SpringDriver&) = delete;
  SpringDriver& operator=(const SpringDriver&) = delete;

  // Relaxes `points` (in place) on the rings, and says how.
  GridLevelReport relax(std::vector<Vec3>& points, const Rings& rings, int level,
                        const GridOptions& options);
  // The GPU used, if any ("" when none was), and why Auto could not use one.
  const std::string& gpu_name() const noexcept { return gpu_name_; }
  const std::string& note() const noexcept { return note_; }

 private:
  const Context* gpu();
  GpuSprings& kernel();
  GpuSprings* usable_kernel();
  bool worth_trying_gpu(std::size_t points) const;
  void finish_on_gpu(const SpringProblem& problem, SpringState& state, GridLevelReport& r);
  void auto_trial(const SpringProblem& problem, SpringState& state, GridLevelReport& r);
  void relax_auto(const SpringProblem& problem, SpringState& state, GridLevelReport& r);
  std::string timing_key(int level) const;

  GridDevice device_;
  const Context* given_;
  std::unique_ptr<Context> own_;
  std::unique_ptr<GpuSprings> springs_;
  bool gpu_won_ = false;  // Auto: the GPU was faster at a level of this build
  bool gpu_unusable_ = false;
  std::string gpu_name_, note_;
};

// A steady clock in seconds (the build times its stages with it).
double seconds_now();

}  // namespace gpgpu::earth::detail
