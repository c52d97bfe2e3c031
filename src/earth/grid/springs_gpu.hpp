// Internal: spring dynamics as a gpgpu compute kernel, in float32 (see springs.hpp).
//
// Float32 positions resolve 6e-8 of the unit sphere, while a level-11 sweep must resolve
// moves of 1e-6 of a 6.5e-4 spacing: far below. So each point is kept as its start
// position on this level (float64, sent as a float32 pair hi + lo) plus a float32
// displacement, and the springs are formed as differences of nearby starts (hi_j - hi_i is
// exact to float32 rounding of the difference) plus differences of displacements. Every
// quantity a sweep forms is then relative to the spacing, and float32 rounding is ~1e-7 of
// the spacing: ten times below the stopping test. The driver still finishes with float64
// sweeps on the CPU, which must pass the test themselves (springs.cpp). A few points move
// far on a level (0.015 of the unit sphere next to the pentagons at every level, three
// spacings at level 8), and their displacements' rounding would grow past the test at
// level 10; so near the end the points are read back and taken as new starts (one round
// trip a level).
//
// One dispatch a sweep (force and update fused, reading one displacement buffer and writing
// the other); every `check_every` sweeps the same dispatch also reduces the largest force
// and move in shared memory and one atomicMax per work group, and two uints are read back.
#pragma once

#include <memory>

#include "earth/grid/springs.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"

namespace gpgpu::earth::detail {

class GpuSprings {
 public:
  // Compiles the kernel (once per Context: it is kept as a Context attachment).
  explicit GpuSprings(const Context& context);

  // Uploads a level: the rings, the state's points as the start positions and its
  // velocities. Throws LimitError when a table exceeds the device's storage-block size.
  void load(const SpringProblem& problem, const SpringState& state);
  // Sweeps until the float32 test passes at a check (no move above the limit, no force
  // above `slack` times it), the force stops falling at the float32 floor (then returns
  // true), `count` sweeps, or max_sweeps in all. Updates state.sweeps, force, moved and
  // converged (not the points: see read).
  bool sweeps(SpringState& state, int count, double slack);
  // Positions (start + displacement, in float64) and velocities into the state.
  void read(SpringState& state) const;
  // The state's points become the start positions (displacement 0), with its velocities.
  void start_from(const SpringState& state);
  // Waits for the GPU.
  void finish() const { context_->finish(); }

 private:
  void dispatch(bool measure);

  const Context* context_;
  ComputeKernel* kernel_;
  const SpringProblem* problem_ = nullptr;
  std::vector<Vec3> start_;
  std::size_t n_ = 0;
  Buffer base_hi_, base_lo_, displacement_[2], velocity_, ring_, largest_;
  int current_ = 0;  // the displacement buffer the next sweep reads
  bool rebased_ = false;
  int stalled_checks_ = 0;
  double best_force_ = 0;
};

}  // namespace gpgpu::earth::detail
