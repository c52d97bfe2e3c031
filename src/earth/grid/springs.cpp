// The spring dynamics of one level on the device the options name (see springs.hpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "earth/grid/parallel.hpp"
#include "earth/grid/springs.hpp"
#include "earth/grid/springs_gpu.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth::detail {

namespace {

// Arc length of an edge of the icosahedron: atan(2).
constexpr double icosahedron_edge = 1.1071487177940905030;

// Auto tries the GPU from level 6 on: below, a level relaxes in milliseconds on the CPU,
// less than making a context and compiling the kernel.
constexpr std::size_t auto_min_points = 40962;
// Sweeps Auto times on each device: a few percent of a level's 200-600.
constexpr int trial_sweeps = 8;

// The fastest of trial_sweeps runs of `sweep`, in milliseconds.
template <class Sweep>
double fastest_sweep_ms(const Sweep& sweep) {
  double fastest = 1e300;
  for (int s = 0; s < trial_sweeps; ++s) {
    const double t0 = seconds_now();
    sweep();
    fastest = std::min(fastest, 1e3 * (seconds_now() - t0));
  }
  return fastest;
}

}  // namespace

SpringDriver::SpringDriver(GridDevice device, const Context* gpu) : device_(device), given_(gpu) {}
SpringDriver::~SpringDriver() = default;

const Context* SpringDriver::gpu() {
  if (given_ != nullptr) return given_;
  if (own_ || gpu_unusable_) return own_.get();
  try {
    own_ = std::make_unique<Context>();
  } catch (const Error& e) {
    if (device_ == GridDevice::Gpu) throw;
    gpu_unusable_ = true;
    note_ = fmt::format("no GPU for the springs ({})", e.what());
  }
  return own_.get();
}

GpuSprings& SpringDriver::kernel() {
  if (!springs_) {
    springs_ = std::make_unique<GpuSprings>(*gpu());
    gpu_name_ = gpu()->info().renderer;
  }
  return *springs_;
}

// The GPU's kernel, or null where the device cannot run it (a device-limit profile with too
// few storage buffers, limits.hpp): then Auto keeps the springs on the CPU.
GpuSprings* SpringDriver::usable_kernel() {
  try {
    return &kernel();
  } catch (const LimitError& e) {
    if (device_ == GridDevice::Gpu) throw;
    gpu_unusable_ = true;
    note_ = fmt::format("the springs stay on the CPU ({})", e.what());
    return nullptr;
  }
}

bool SpringDriver::worth_trying_gpu(std::size_t points) const {
  return device_ == GridDevice::Auto && points >= auto_min_points && !gpu_unusable_;
}

// The rest of the level on the GPU (loaded). Each time its float32 test passes (or its
// force stops falling), one float64 sweep on the CPU decides: the float32 test does not
// prove the float64 one. Until it passes, the GPU goes on from the float64 points with a
// stricter force test. The float32 force errs by up to 0.3 of the limit (measured at levels
// 5-8: the springs' lengths round to 6e-8 of the spacing, six springs a point, the worst
// of all points), while a move is exact to its own rounding; so the first test allows
// forces to 1.5 limits.
void SpringDriver::finish_on_gpu(const SpringProblem& problem, SpringState& state,
                                 GridLevelReport& r) {
  GpuSprings& springs = kernel();
  for (double slack = 1.5;; slack = std::max(0.5, 0.7 * slack)) {
    const int before = state.sweeps;
    springs.sweeps(state, problem.max_sweeps, slack);
    springs.read(state);
    r.gpu_sweeps += state.sweeps - before;
    state.converged = false;
    cpu_sweeps(problem, state, 1);
    if (state.converged || state.sweeps >= problem.max_sweeps) return;
    springs.start_from(state);
  }
}

// A few timed sweeps on the CPU, then on the GPU, both advancing the relaxation; the level
// goes on where the sweep was faster. Each sweep is timed alone (the GPU's waited for) and
// the fastest counts: on a busy machine the slow ones measure the other programs. The
// timing is kept for later builds on this machine (device_choice.hpp).
void SpringDriver::auto_trial(const SpringProblem& problem, SpringState& state,
                              GridLevelReport& r) {
  r.cpu_sweep_ms = fastest_sweep_ms([&] { cpu_sweeps(problem, state, 1); });
  if (state.converged || gpu() == nullptr || usable_kernel() == nullptr) {
    return cpu_sweeps(problem, state, problem.max_sweeps);
  }
  GpuSprings& springs = kernel();
  springs.load(problem, state);
  const int before = state.sweeps;
  springs.sweeps(state, 2, 1.0);  // the first compiles the kernel, if not yet
  r.gpu_sweep_ms = fastest_sweep_ms([&] {
    springs.sweeps(state, 1, 1.0);
    springs.finish();
  });
  r.gpu_sweeps += state.sweeps - before;
  const SweepTiming timing{r.level, r.cpu_sweep_ms, r.gpu_sweep_ms};
  remember_timing(timing_key(r.level), timing);
  gpu_won_ = timing.gpu_faster();
  if (gpu_won_) return finish_on_gpu(problem, state, r);
  springs.read(state);
  state.converged = false;
  cpu_sweeps(problem, state, problem.max_sweeps);
}

// The GPU, the CPU threads and the level a timing belongs to. Without a Context, the
// default device: naming it would mean making one, which a remembered choice of the CPU
// avoids.
std::string SpringDriver::timing_key(int level) const {
  const char* chosen = std::getenv("GPGPU_DEVICE");
  return fmt::format("springs v1 gpu={} cpu_threads={} level={}",
                     given_ != nullptr ? given_->info().renderer
                                       : fmt::format("default({})", chosen ? chosen : "auto"),
                     worker_count(), level);
}

// A level goes to the GPU where the GPU won at this level or a smaller one (its lead grows
// with the points: the cost of a dispatch is spread over more of them), to the CPU where
// the CPU won at this level; otherwise this level is timed.
void SpringDriver::relax_auto(const SpringProblem& problem, SpringState& state,
                              GridLevelReport& r) {
  if (!gpu_won_) {
    const auto timing = recalled_timing(timing_key(r.level));
    if (!timing) return auto_trial(problem, state, r);
    gpu_won_ = timing->gpu_faster();
  }
  if (gpu_won_ && gpu() != nullptr && usable_kernel() != nullptr) {
    kernel().load(problem, state);
    return finish_on_gpu(problem, state, r);
  }
  cpu_sweeps(problem, state, problem.max_sweeps);
}

GridLevelReport SpringDriver::relax(std::vector<Vec3>& points, const Rings& rings, int level,
                                    const GridOptions& options) {
  const double natural = options.spring_beta * icosahedron_edge / std::ldexp(1.0, level);
  const SpringProblem problem{&rings, 2 * std::sin(0.5 * natural),
                              options.spring_tolerance * natural, options.spring_max_sweeps};
  SpringState state;
  state.points = std::move(points);
  state.velocity.assign(state.points.size(), Vec3{});
  GridLevelReport r;
  r.level = level;
  r.points = state.points.size();
  const double t0 = seconds_now();
  if (device_ == GridDevice::Gpu) {
    if (gpu() == nullptr) throw ContextError("earth grid: no GPU context for the springs");
    kernel().load(problem, state);
    finish_on_gpu(problem, state, r);
  } else if (worth_trying_gpu(r.points)) {
    relax_auto(problem, state, r);
  } else {
    cpu_sweeps(problem, state, problem.max_sweeps);
  }
  r.seconds = seconds_now() - t0;
  r.sweeps = state.sweeps;
  r.converged = state.converged;
  r.device = r.gpu_sweeps == 0 ? "cpu" : r.gpu_sweeps == r.sweeps ? "gpu" : "gpu+cpu";
  points = std::move(state.points);
  return r;
}

}  // namespace gpgpu::earth::detail
