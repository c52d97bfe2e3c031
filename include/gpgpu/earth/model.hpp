// gpgpu/earth/model.hpp — the shallow-water model on the GPU: compute kernels on resident
// Buffers, float32 fields.
//
//   gpgpu::Context ctx;
//   gpgpu::earth::Grid grid = gpgpu::earth::build_grid({.level = 6});
//   gpgpu::earth::Model model(ctx, grid, gpgpu::earth::make_case(6));
//   model.run(14 * 86400.0, [](double done) { std::cerr << done * 100 << "%\r"; });
//   gpgpu::earth::Fields f = model.fields();            // download, as float64
//   gpgpu::earth::GlobalSums s = model.sums();          // mass, energy, enstrophy
//
// The scheme is the float64 ReferenceModel's (reference.hpp), kernel by kernel:
//   tendency  one invocation per cell: gathers its (up to) six neighbours and sums the edge
//             terms of div(h u), grad(g (h + h_s) + |u|^2/2) and curl u over its corners;
//   update    the continuity correction (needs the neighbours' tendencies, hence a second
//             kernel) fused with the Runge-Kutta stage update;
// two dispatches per stage, eight per step, plus two for hyperdiffusion when it is on; five
// when stages 2-4's tendencies apply the previous stage's update themselves
// (ModelOptions::fuse_stages: by default on GPUs for grids up to level 5); one in one process
// on a GPU for grids up to level 7, whose work groups wait for each other between the
// kernels' parts (ModelOptions::one_dispatch_steps). A step queues
// its dispatches without waiting for the GPU (no read-back, no fence); only fields(),
// sums(), vorticity() and the state check wait.
//
// Across processes (team.hpp). Given a Team of N ranks, each rank's Model holds one
// subdomain (partition.hpp): its own cells plus two halo rings, swapped with the neighbours
// before every stage's tendencies. The arithmetic of every cell is unchanged, so the state
// of an N-rank run equals the one-process run's bit for bit (the one process running the
// ranks' kernels: one_dispatch_steps Off). Then step() and run() are
// collective (every rank calls them alike), and so are fields(), vorticity(), sums(),
// raw_tendency() and check(): the per-cell results arrive in global cell order on rank 0
// (the other ranks get empty ones), and the sums on every rank. The sums add the ranks'
// partial sums, so they may differ from one process's in the last bits.
//
// Blow-up. run() checks the state every progress_every steps and at its end (check() does
// it on demand): a NaN or infinity in any field, or a depth outside its physical range —
// (0, 2 x the initial deepest) for cases 2, 5 and 6, (-h0, 2 h0) for case 1's tracer, h0 its
// initial maximum — throws InstabilityError naming the step, the field, the value and the
// cell, on every rank at once.
//
// Precision. Fields are float32: the depth is stored as its deviation from the initial
// mean (so its rounding is relative to the part that varies), geometry is computed in
// float64 and rounded once. Global sums come from gpgpu::reduce (float32, a fixed tree of
// depth d: each errs by at most d eps32 of the sum of its terms' magnitudes, d ~20 for
// these sizes); fields() returns the exact stored values for float64 diagnostics.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "gpgpu/context.hpp"
#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/earth/options.hpp"
#include "gpgpu/earth/partition.hpp"
#include "gpgpu/earth/team.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu {
class Timeline;  // gpgpu/timeline.hpp
}  // namespace gpgpu

namespace gpgpu::earth {

// The model's state blew up: a NaN or infinity, or a depth outside its physical range. The
// message names the step, the field, the value and the cell. Thrown on every rank at once.
class InstabilityError : public TeamError {
 public:
  using TeamError::TeamError;
};

// Integrals over the sphere (radius a): mass = int h dA (m^3), energy = int (h |u|^2/2 +
// g h (h/2 + h_s)) dA, potential enstrophy = int (zeta + f)^2 / (2 h) dA, circulation =
// int zeta dA.
struct GlobalSums {
  double mass = 0, energy = 0, potential_enstrophy = 0, circulation = 0;  // as above
};

// Bytes one step's kernels must move to and from memory if every array element is read or
// written once (the compulsory traffic; neighbour gathers that hit in cache are not
// counted again), and the dispatches that move them.
struct StepTraffic {
  double bytes = 0;    // compulsory bytes a step
  int dispatches = 0;  // kernel dispatches a step
};

// GPU time of each kernel, summed over the dispatches timed (see Model::set_kernel_timing).
// A fused stage (ModelOptions::fuse_stages) and a one-dispatch step (one_dispatch_steps)
// count as tendencies.
struct KernelTimes {
  double tendency_ms = 0, update_ms = 0, diffusion_ms = 0;  // per kind of kernel
  long long tendency_dispatches = 0, update_dispatches = 0;  // of those timed
  long long dispatches = 0;                                  // dispatches timed, all kinds
  bool available = false;  // the device has timer queries
};

// The shallow-water model on the GPU: a grid, a test case's initial state, and the RK4
// steps (the manual at the top of this header).
class Model {
 public:
  // Uploads the geometry and the case's initial fields. Throws ArgumentError for invalid
  // options and LimitError when a table exceeds the device's storage-block size.
  Model(const Context& context, const Grid& grid, const CaseSetup& setup,
        const ModelOptions& options = {});
  // This rank's part of a model run across `team` (which must outlive it). Collective.
  Model(const Context& context, const Grid& grid, const CaseSetup& setup,
        const ModelOptions& options, Team& team);
  ~Model();
  // @{
  // Moves the model; a moved-from Model must not be used.
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  // @}
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // Queues `count` steps of time_step() seconds. Does not wait for the GPU.
  void step(long long count = 1);
  // Advances `seconds` in equal steps of at most max_time_step(); calls progress(fraction
  // done) about every progress_every steps (it waits for the GPU then, so progress is
  // real), and checks the state there and at the end (throws InstabilityError). The time
  // step stays as fitted afterwards.
  void run(double seconds, const std::function<void(double)>& progress = {},
           long long progress_every = 200);
  // Throws InstabilityError when a field holds a NaN or infinity, or the depth left its
  // physical range (see above). Waits for the GPU.
  void check() const;

  double time() const;           // simulated seconds so far
  double time_step() const;      // the step step() takes
  double max_time_step() const;  // CFL step (or ModelOptions::time_step)
  long long steps_taken() const;  // steps since the start
  void set_time_step(double seconds);  // the step step() takes from now on

  Fields fields() const;                  // downloads h, u (surface from the case)
  void set_fields(const Fields& fields);  // uploads h and u of every cell (e.g. for tests)
  std::vector<double> vorticity() const;  // relative vorticity zeta (1/s) per cell
  GlobalSums sums() const;                // GPU reduction, finished in float64
  // The tendencies (dh/dt without the continuity correction, du/dt) of the current fields.
  Fields raw_tendency() const;

  StepTraffic traffic() const;  // this rank's kernels
  // Times every dispatch with a GPU timer query (each then waits for the GPU, so steps run
  // one kernel at a time: for measuring kernels, not for production runs).
  void set_kernel_timing(bool on);
  KernelTimes kernel_times() const;  // summed since the last reset
  void reset_kernel_times();         // zeroes kernel_times()
  // Marks every step on `timeline` (null: none), the index being the step's number: "step"
  // where it starts; on a step that starts with an overlapped swap also "swap started" (the
  // halo's pack and download queued), "inner step" (the inner cells' pass queued) and "swap
  // done" (the received halo's upload queued). Nothing waits. The Timeline must outlive its
  // use here (set null before it goes).
  void set_timeline(Timeline* timeline);
  const Grid& grid() const;             // the grid it runs on
  const CaseSetup& setup() const;       // the test case
  const ModelOptions& options() const;  // the numerical options
  double mean_depth() const;  // the depth the state is stored relative to (m)
  const Subdomain& subdomain() const;  // this rank's cells (all cells in one process)
  Team& team() const;                  // the ranks it runs across (one process: a team of one)

 private:
  Model(const Context& context, const Grid& grid, const CaseSetup& setup,
        const ModelOptions& options, Team* team);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpgpu::earth
