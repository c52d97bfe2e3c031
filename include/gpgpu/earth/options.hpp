// gpgpu/earth/options.hpp — the shallow-water model's numerical options, shared by the GPU
// model (model.hpp) and the float64 CPU reference (reference.hpp).
//
//   gpgpu::earth::ModelOptions o;         // the defaults reproduce docs/earth.md
//   o.courant = 1.0;                      // a shorter step
//   o.diffusion_time = 6 * 3600;          // add del^4 hyperdiffusion
//
// Time step. dt = courant * (smallest distance between neighbouring cells) /
// max over cells of (|u| + sqrt(g h)), from the initial fields, then shortened so that the
// run is a whole number of equal steps. The collocated operators' largest eigenvalue is
// about 1/(2.6 dx), so classical RK4 (stable up to 2.83 on the imaginary axis) was measured
// stable up to courant ~2.5 for cases 1, 2 and 6 at level 4; the default 1.6 keeps a margin
// for flows that speed up during a run.
//
// Continuity correction. The divergence operator's leading error on these grids is
// c dx^2 lap(div F), with c = 1/8 measured (a regular hexagon gives 7/72 + 5/144 = 0.132:
// the corner interpolation, the trapezoidal edge rule and the cell mean). The height
// tendency is therefore D(hu) - c sum_k (l_k d_k / A) (D(hu)_k - D(hu)_cell), a conservative
// flux-form correction that makes the height advection fourth order where the grid is
// smooth (second order near the twelve pentagons). It cuts case 1's error five- to
// ten-fold at levels 4-6; 0 gives the plain second-order scheme.
//
// Hyperdiffusion. -nu del^4 on h and u, nu = (dx/pi)^4 / diffusion_time with dx the mean
// spacing: the continuous operator damps the 2 dx wave by e in diffusion_time seconds.
// Applied as a forward-Euler step after each RK4 step; never for case 1. 0 turns it off.
#pragma once

#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/grid.hpp"

namespace gpgpu::earth {

// The largest Courant number classical RK4 was measured stable at with these operators
// (cases 1, 2 and 6, level 4). The library accepts larger ones (Model::run stops a run that
// blows up); `gpgpu earth` refuses them unless --force-courant.
inline constexpr double max_stable_courant = 2.5;

// The model's numerical options and the GPU kernels' knobs (the manual above).
struct ModelOptions {
  double courant = 1.6;                  // the time step's Courant number (Time step, above)
  double continuity_correction = 0.125;  // c of the continuity correction (above); 0: off
  double diffusion_time = 0;  // seconds; 0 = off
  double time_step = 0;       // seconds; > 0 overrides the CFL choice
  // Performance knobs of the GPU kernels (results agree to float32 rounding):
  int work_group_size = 128;        // invocations per work group: 32..1024, a multiple of 32
  bool preload_neighbours = false;  // gather all six neighbours before the corner walk
  // Whether each Runge-Kutta stage's update is applied inside the next stage's tendency
  // kernel, which recomputes it for the cell and its neighbours from the tendencies (and
  // runs eight invocations a cell): 5 dispatches a step instead of 8, for small grids on
  // GPUs, whose steps the chain of dependent dispatches limits; the recomputed updates cost
  // more than that chain on larger grids and on a software rasterizer. The same
  // expressions, which a compiler may contract differently once they feed the tendency:
  // results agree to float32 rounding, and every rank of a fused run gets one process's
  // bits. Needs 8 storage buffers and 56 x work_group_size bytes of shared memory in a
  // compute shader, and no halo swap inside a step (so not with halo_per_step = false
  // across ranks); the plain kernels otherwise. Auto: on GPUs, for grids of at most 16,384
  // cells (levels 0-5). Measured on an H200 (docs/earth-speed.md): levels 3-5 step 1.28-1.51x
  // as fast fused, level 6 (40,962 cells) 0.74x; on llvmpipe level 5 steps 6x slower fused.
  enum class StageFusion { Auto, On, Off };
  StageFusion fuse_stages = StageFusion::Auto;  // (above)
  // One process, no hyperdiffusion: a whole step in one dispatch, whose work groups meet at
  // a grid-wide wait between the stages' kernels instead of at the ends of 8 dependent
  // dispatches (small grids' steps are that chain). The same expressions: results agree with
  // the plain kernels to float32 rounding. Needs 12 storage buffers in a compute shader and
  // all its work groups running at once, which OpenGL does not promise: a wait that polls
  // too long gives up (the step's results are then wrong, and the next Model::check or run
  // check throws), and a Model tries one step when it is built. On: throws LimitError where
  // the device cannot; Auto: on GPUs, for grids of at most 163,842 cells (levels 0-7), where
  // that first step's groups ran together. Measured on an H200 (docs/earth-speed.md): level
  // 6 steps 1.6x as fast as 8 replayed dispatches, levels 3-5 1.2-1.4x as fast as fused
  // stages, level 7 1.1x; level 8 0.96x. A run across ranks takes the plain kernels, so one
  // process's steps differ from theirs by float32 rounding unless this is Off.
  enum class OneDispatch { Auto, On, Off };
  OneDispatch one_dispatch_steps = OneDispatch::Auto;  // (above)
  // The one-dispatch step's work groups (of work_group_size); each invocation takes every
  // so-many-th cell. 0: one invocation a cell, at most 512 groups; one on a software device
  // (llvmpipe ends a shader's loops after 65,535 iterations in all, a few milliseconds of a
  // wait's polls, so its groups cannot wait for each other for long).
  int one_dispatch_groups = 0;
  // Polls of a grid-wide wait before it gives up. 0: 2^18 (on an H200 about 0.1 s, under the
  // watchdogs that reset a GPU whose shader runs for seconds).
  int one_dispatch_polls = 0;
  // Across ranks (team.hpp, partition.hpp): true swaps a halo of 8 rings (10 with
  // hyperdiffusion) once per step and computes its stages redundantly on the rings; false
  // swaps 2 rings before every stage (4 exchanges a step, 5 with hyperdiffusion). The same
  // bits either way; one process has no halo.
  bool halo_per_step = true;
  // With halo_per_step: swap once every `halo_steps` steps (1..16), a halo that many times as
  // deep, computed redundantly: fewer, larger exchanges, for grids whose exchange costs more
  // than the rings' extra work (a rank's part of level 8 on two GPUs). Still the same bits.
  // 0 chooses: on a GPU the largest of 8, 4, 2 whose halo is at most half of every rank's
  // own cells (8 on two GPUs at levels 8 and 9, the fastest measured), else 1; 1 on a
  // software rasterizer, where the rings' extra work costs more than an exchange.
  int halo_steps = 0;
  // With halo_per_step: whether a step that starts with a swap computes the own cells a
  // step's rings inside while the halo travels, then the band the halo reaches (model.cpp;
  // the same bits either way). Auto: on GPUs, which run that step while the host waits for
  // the messages; not on a software rasterizer, whose kernels run on the host, where the
  // second pass's dispatches and recomputed band only cost (2-rank level-5 runs on llvmpipe:
  // 20% fewer steps a second with it).
  enum class SwapOverlap { Auto, On, Off };
  SwapOverlap overlap_swaps = SwapOverlap::Auto;  // (above)
  // One process: replay each step's 8 to 10 dispatches from a recorded gpgpu::Sequence
  // (docs/sequences.md), the same dispatches and bits for less CPU per step, which is what
  // limits small grids. Not with kernel timing (Model::set_kernel_timing) or a timeline,
  // which see each dispatch; never across ranks, whose steps exchange halos between them.
  bool replay_steps = true;
};

// Throws ArgumentError for a non-positive courant, a negative correction, diffusion time or
// time step, non-finite values, or a work-group size outside 32..1024 or not a multiple of 32.
void validate(const ModelOptions& options);

// The CFL step (s) for these fields.
double cfl_time_step(const Grid& grid, const CaseSetup& setup, const Fields& fields,
                     double courant);
// The step the model takes before fitting it to the run length: time_step if set, else CFL.
double model_time_step(const Grid& grid, const CaseSetup& setup, const Fields& fields,
                       const ModelOptions& options);
// nu (m^4/s) for this grid, case and options; 0 when off or for case 1.
double hyperdiffusion_coefficient(const Grid& grid, const CaseSetup& setup,
                                  const ModelOptions& options);
// Equal steps covering `seconds` of at most max_step each.
long long steps_for(double seconds, double max_step);

// @{
// Mean and smallest distance between neighbouring cells (unit sphere).
double mean_spacing(const Grid& grid);
double min_spacing(const Grid& grid);
// @}

}  // namespace gpgpu::earth
