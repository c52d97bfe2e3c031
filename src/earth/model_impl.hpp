// The inside of gpgpu::earth::Model, shared by model.cpp (building and stepping) and
// model_state.cpp (fields, sums and the state check, gathered across the team).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/earth/model.hpp"
#include "gpgpu/earth/partition.hpp"
#include "gpgpu/earth/team.hpp"
#include "gpgpu/sequence.hpp"

namespace gpgpu::earth {

namespace detail {

// A kernel that takes only the arguments it declares: variants compiled with different
// defines drop uniforms (the advection kernel has no gravity), and gpgpu rejects values for
// variables a kernel does not have.
class Kernel {
 public:
  bool timing() const { return timing_; }
  Kernel(const Context& ctx, const std::string& source, const Defines& defines, std::string label);
  // Runs `items` invocations; none when items is 0.
  void run(const Args& args, std::size_t items);
  void set_timing(bool on);
  double total_ms() const { return total_ms_; }
  long long timed() const { return timed_; }
  void reset() { total_ms_ = 0, timed_ = 0; }

 private:
  ComputeKernel kernel_;
  std::set<std::string> names_;
  bool timing_ = false;
  double total_ms_ = 0;
  long long timed_ = 0;
};

// The fused steps' tendencies (ModelOptions::fuse_stages): stage 0's, and stages 1-3's with
// the previous stage's update applied (model_kernels.hpp, tendency_lanes_source).
struct FusedKernels {
  Kernel first_stage, later_stages;
};

// Classical RK4: a stage's tendency weighs next_weight in the next stage's input and
// acc_weight in the step's result.
inline constexpr double next_weight[4] = {0.5, 0.5, 1.0, 0.0};
inline constexpr double acc_weight[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};

// The tendency kernels' defines: ADVECTION_ONLY for case 1, PRELOAD when asked for.
Defines tendency_defines(const CaseSetup& s, const ModelOptions& o);

// The one-dispatch step (ModelOptions::one_dispatch_steps): its kernel, the word its work
// groups meet at, and how many groups it runs.
struct OneDispatch {
  Kernel kernel;
  Buffer wait;  // arrived, departed, gave_up (step_kernel.cpp)
  std::size_t groups = 0;
  std::uint32_t spin_inner = 0, spin_rounds = 0;  // a wait's polls: their product
};

}  // namespace detail

struct Model::Impl {
  const Context* context;
  const Grid* grid;
  CaseSetup setup;
  ModelOptions options;
  std::unique_ptr<Team> own_team;  // one_process(), when the Model was given no Team
  Team* team;
  Subdomain domain;
  std::unique_ptr<Halo> halo;
  double mean_depth = 0, max_dt = 0, dt = 0, time = 0, nu = 0, owned_area = 0;
  double lowest_depth = 0, highest_depth = 0;  // the physical range the check enforces
  long long steps = 0;
  int state_valid = 0;           // halo rings of `state` holding current values (see one_step)
  bool overlap = false;          // a step starting with a swap runs in two passes (one_step)
  Timeline* timeline = nullptr;  // Model::set_timeline
  std::vector<double> surface;
  // Recorded steps (one_step), by what decides a step's dispatches: the state Buffer (the
  // two trade places each step), the rings it holds current and the time step.
  struct RecordedStep {
    Sequence sequence;
    int valid_after = 0;  // the state_valid the step leaves
  };
  std::map<std::tuple<unsigned, int, double>, RecordedStep> recorded_steps;

  detail::Kernel tendency, diagnose, update, laplacian, diffusion, check;
  std::optional<detail::FusedKernels> fusion;  // ModelOptions::fuse_stages, when used
  std::optional<detail::OneDispatch> one_dispatch;  // one_dispatch_steps, when used
  // state, next_state, x, y, acc: every local cell; lap: cells with tendencies (stride());
  // tend: stride() cells, twice that when fused (the fused stages' previous and current
  // tendencies in turn). A step reads state and writes next_state (then they trade places),
  // so that a step computed in two parts never reads a cell the other part already moved on.
  Buffer state, next_state, x, y, acc, tend, lap;
  Buffer position, slot, neighbour, correction, laplace, inv_area;

  Impl(const Context& ctx, const Grid& g, const CaseSetup& s, const ModelOptions& o, Team* t);
  // Cells per row of the slot-major tables: those that ever compute a tendency.
  std::size_t stride() const { return domain.within(domain.depth - 1); }

  // model.cpp: the time step, as passes over a band of cells. `valid` counts the halo rings
  // of a stage's input that hold current values (negative: only the own cells that many
  // steps inside do): a stage computes tendencies up to valid - 1 rings and updates up to
  // valid - 2. `from`, when set, starts the band there (reach(from + 1) for the tendencies,
  // reach(from + 2) for the updates) and moves out by two a stage, as valid moves in. A
  // pass that may swap swaps a stage's input first when fewer than 2 rings are valid.
  struct Band {
    std::optional<int> from;
    int valid = 0;
    bool may_swap = true;
  };
  std::size_t reach(int k) const;  // Subdomain::within(k) for k >= 0, inner(-k) below
  std::pair<std::size_t, std::size_t> cells(const Band& b, int rings) const;
  int step_rings() const;  // the rings one step uses up (halo_depth per step)
  Args tendency_args(const Buffer& in, std::size_t first) const;
  void tendencies(Buffer& in, Band& b, bool lanes);  // lanes: fusion's first stage
  void stage(int s, Buffer& in, const Buffer& base, Buffer& next, Band& b);
  // Stages 1-3 through the fused kernel, after stage 0's tendencies, when no swap falls
  // between them; then stage 3's update into `result`.
  bool fuses(const Band& b) const;
  void fused_stages(Buffer& result, Band& b);
  void update_stage(int s, const Buffer& base, Buffer& next, Band& b, std::size_t tend_in);
  void diffuse(Buffer& in, Band& b);
  int pass(Band b);
  // One step's dispatches (state -> next_state); returns the rings of the result that hold
  // current values.
  int step_dispatches();
  // model_one_dispatch.cpp: the one-dispatch step, when options and device allow it; the
  // probe that drops it (or throws, when asked for) where its groups do not run together.
  void choose_one_dispatch();
  void one_dispatch_step();
  bool one_dispatch_gave_up();  // reads and clears the kernel's flag
  // The same from a recording (replay_steps): recorded on first use, replayed after.
  int replayed_step();
  bool replays_steps();
  // The kernels a step runs that Model::set_kernel_timing times.
  std::vector<detail::Kernel*> stepping_kernels();
  void one_step();
  void mark(const char* label);  // on the timeline, if any, at this step
  void refresh_halo(Buffer& values);

  // model_state.cpp: what leaves the device.
  std::vector<float> download_owned(const Buffer& b) const;  // 4 floats per own cell
  // 4 floats per cell of `b`'s own cells, all ranks' in global order, on rank 0.
  std::vector<float> gather_owned(const Buffer& b) const;
  // The first broken cell of this rank's state (in global order), described; "" if none.
  std::string state_problem();
  // Collective: throws InstabilityError on every rank when any rank's state is broken.
  void check_state();
};

}  // namespace gpgpu::earth
