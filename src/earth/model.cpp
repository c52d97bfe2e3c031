// Model: the shallow-water model on the GPU (see gpgpu/earth/model.hpp); building it and
// stepping it. What leaves the device (fields, sums, the state check) is in model_state.cpp.
#include "gpgpu/earth/model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "earth/model_geometry.hpp"
#include "earth/model_impl.hpp"
#include "earth/model_kernels.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/timeline.hpp"

namespace gpgpu::earth {

namespace detail {

Defines tendency_defines(const CaseSetup& s, const ModelOptions& o) {
  Defines d;
  if (s.advection_only) d.emplace_back("ADVECTION_ONLY", "");
  if (o.preload_neighbours) d.emplace_back("PRELOAD", "");
  return d;
}

Kernel::Kernel(const Context& ctx, const std::string& source, const Defines& defines,
               std::string label)
    : kernel_(ctx, source, defines, std::move(label)) {
  for (const auto& v : kernel_.variables()) {
    names_.insert(v.name);
    if (!v.alias.empty()) names_.insert(v.alias);
  }
}

void Kernel::run(const Args& args, std::size_t items) {
  if (items == 0) return;
  Args used;
  used.reserve(args.size());
  for (const auto& a : args) {
    if (names_.count(a.name) != 0) used.push_back(a);
  }
  kernel_.run(used, items);
  if (timing_) {
    const double ns = kernel_.last_gpu_ns();
    if (ns >= 0) total_ms_ += ns * 1e-6, ++timed_;
  }
}

void Kernel::set_timing(bool on) {
  timing_ = on;
  kernel_.set_timing(on);
}

}  // namespace detail

namespace {

Buffer floats(const Context& ctx, const std::vector<float>& v) {
  return Buffer::from(ctx, v);
}
Buffer ints(const Context& ctx, const std::vector<std::int32_t>& v) {
  return Buffer::from(ctx, v);
}
Buffer vec4s(const Context& ctx, std::size_t cells) {
  return Buffer(ctx, ElementType::Float32, 4 * std::max<std::size_t>(cells, 1));
}

// The fused steps' tendency kernels (ModelOptions::fuse_stages): stage 0's and stages 1-3's
// with the previous update, eight invocations a cell. The second binds 8 storage buffers,
// and both take 56 bytes of shared memory an invocation; a device that allows less (OpenGL
// ES 3.1 guarantees 4 buffers and 16 KiB) runs the plain kernels. Auto fuses on GPUs for
// grids of at most fused_cells cells (options.hpp gives the measurements behind it): the
// grid's, not a rank's, so that every rank takes the same kernels.
constexpr std::size_t fused_cells = 16384;

bool fusion_wanted(const Context& ctx, const ModelOptions& o, const Grid& g) {
  using Fusion = ModelOptions::StageFusion;
  const auto& info = ctx.info();
  const bool wanted =
      o.fuse_stages == Fusion::On ||
      (o.fuse_stages == Fusion::Auto && !info.is_software && g.cell_count() <= fused_cells);
  return wanted && info.max_compute_shader_storage_blocks >= 8 &&
         info.max_combined_shader_storage_blocks >= 8 &&
         info.max_compute_shared_memory_size >= 56 * o.work_group_size;
}

detail::FusedKernels fused_kernels(const Context& ctx, const CaseSetup& s, const ModelOptions& o) {
  const Defines plain = detail::tendency_defines(s, {});  // the lanes kernels have no PRELOAD
  Defines fused = plain;
  fused.emplace_back("FUSED", "");
  const int group = o.work_group_size;
  return detail::FusedKernels{detail::Kernel(ctx, detail::tendency_lanes_source(group, false),
                                             plain, "earth tendency (lanes)"),
                              detail::Kernel(ctx, detail::tendency_lanes_source(group, true), fused,
                                             "earth fused tendency")};
}

std::array<float, 3> to_float3(const Vec3& v) {
  return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
}

std::uint32_t u32(std::size_t v) {
  return static_cast<std::uint32_t>(v);
}

// The rings a step uses up: 2 per stage (4 stages: 8), plus 2 for hyperdiffusion's
// Laplacian of the Laplacian.
int rings_a_step(const CaseSetup& s, const ModelOptions& o) {
  const bool diffusion = o.diffusion_time > 0 && !s.advection_only;
  return diffusion ? 10 : 8;
}

// Halo rings: a step's for every step a swap covers, or 2 swapped again before every stage.
int halo_depth(const CaseSetup& s, const ModelOptions& o) {
  return o.halo_per_step ? rings_a_step(s, o) * o.halo_steps : 2;
}

// This rank's part of the grid, choosing options.halo_steps where it is 0 (options.hpp): the
// deepest of 8, 4, 2 steps whose halo is at most half of every rank's own cells, on GPUs,
// where an exchange costs more than the rings' redundant work; 1 otherwise. Every rank takes
// the same choice (the sum of the ranks' refusals), as their exchanges must pair up.
Subdomain partition(const Context& ctx, const Grid& g, const CaseSetup& s, Team& team,
                    ModelOptions& o) {
  if (o.halo_per_step && o.halo_steps == 0 && team.size() > 1 && !ctx.info().is_software) {
    // The deepest candidate's rings hold the shallower ones' (Subdomain::within): one
    // partition and one sum decide all three.
    constexpr int candidates[3] = {8, 4, 2};
    ModelOptions deepest = o;
    deepest.halo_steps = candidates[0];
    Subdomain d = make_subdomain(g, team.size(), team.rank(), halo_depth(s, deepest));
    double refusals[3];
    for (int i = 0; i < 3; ++i) {
      deepest.halo_steps = candidates[i];
      const std::size_t halo = d.within(halo_depth(s, deepest)) - d.owned;
      refusals[i] = 2 * halo > d.owned ? 1.0 : 0.0;
    }
    team.sum(refusals);
    for (int i = 0; i < 3; ++i) {
      if (refusals[i] != 0) continue;
      o.halo_steps = candidates[i];
      return i == 0 ? d : make_subdomain(g, team.size(), team.rank(), halo_depth(s, o));
    }
  }
  if (o.halo_steps == 0) o.halo_steps = 1;
  return make_subdomain(g, team.size(), team.rank(), halo_depth(s, o));
}

}  // namespace

Model::Impl::Impl(const Context& ctx, const Grid& g, const CaseSetup& s, const ModelOptions& o,
                  Team* t)
    : context(&ctx),
      grid(&g),
      setup(s),
      options(o),
      own_team(t == nullptr ? one_process() : nullptr),
      team(t == nullptr ? own_team.get() : t),
      domain(partition(ctx, g, s, *team, options)),  // options.halo_steps chosen there
      tendency(ctx, detail::tendency_kernel_source(o.work_group_size),
               detail::tendency_defines(s, o), "earth tendency"),
      diagnose(ctx, detail::tendency_kernel_source(o.work_group_size), {{"DIAGNOSE", ""}},
               "earth diagnostics"),
      update(ctx, detail::update_kernel_source(o.work_group_size), {}, "earth update"),
      laplacian(ctx, detail::laplacian_kernel_source(o.work_group_size), {}, "earth laplacian"),
      diffusion(ctx, detail::diffusion_kernel_source(o.work_group_size), {},
                "earth hyperdiffusion"),
      check(ctx, detail::check_kernel_source(o.work_group_size), {}, "earth state check") {}

Args Model::Impl::tendency_args(const Buffer& in, std::size_t first) const {
  return {{"state", in},
          {"position", position},
          {"slot", slot},
          {"inv_area", inv_area},
          {"tend", tend},
          {"first", u32(first)},
          {"stride", u32(stride())},
          {"mean_depth", static_cast<float>(mean_depth)},
          {"gravity", static_cast<float>(setup.planet.gravity)},
          {"coriolis_axis", to_float3(setup.coriolis_axis() * (2 * setup.planet.omega))},
          {"radius", static_cast<float>(setup.planet.radius)}};
}

int Model::Impl::step_rings() const {
  return rings_a_step(setup, options);
}

std::size_t Model::Impl::reach(int k) const {
  return k >= 0 ? domain.within(k) : domain.inner(-k);
}

// The local cells [first, end) of a band for a kernel that needs `rings` rings around what
// it computes to hold current values (1: a tendency reads the neighbours; 2: an update
// reads their tendencies).
std::pair<std::size_t, std::size_t> Model::Impl::cells(const Band& b, int rings) const {
  const std::size_t end = reach(b.valid - rings);
  const std::size_t first = b.from ? std::min(reach(*b.from + rings), end) : 0;
  return {first, end};
}

// The tendencies of a stage's band. When the halo must be swapped first, the interior's run
// while it is in flight and the rest once it has arrived.
void Model::Impl::tendencies(Buffer& in, Band& b, bool lanes) {
  auto run = [&](std::size_t first, std::size_t count) {
    if (lanes) {
      fusion->first_stage.run(tendency_args(in, first), 8 * count);  // eight lanes a cell
    } else {
      tendency.run(tendency_args(in, first), count);
    }
  };
  if (b.may_swap && b.valid < 2) {
    halo->start(in);
    run(0, domain.interior());
    halo->finish(in);
    b.valid = domain.depth;
    const std::size_t end = cells(b, 1).second;
    run(domain.interior(), end - std::min(end, domain.interior()));
    return;
  }
  const auto [first, end] = cells(b, 1);
  run(first, end - first);
}

// Runge-Kutta stage s: tendency of `in`, then next = base + a dt k, acc += b dt k.
void Model::Impl::stage(int s, Buffer& in, const Buffer& base, Buffer& next, Band& b) {
  tendencies(in, b, false);
  update_stage(s, base, next, b, 0);
}

// Stage s's update from the tendencies at tend_in in `tend`.
void Model::Impl::update_stage(int s, const Buffer& base, Buffer& next, Band& b,
                               std::size_t tend_in) {
  const auto [first, end] = cells(b, 2);
  update.run({{"tend", tend},
              {"tend_in", u32(tend_in)},
              {"neighbour", neighbour},
              {"correction", correction},
              {"base", base},
              {"acc", acc},
              {"next", next},
              {"stage", static_cast<std::int32_t>(s)},
              {"stride", u32(stride())},
              {"first", u32(first)},
              {"next_step", static_cast<float>(detail::next_weight[s] * dt)},
              {"acc_step", static_cast<float>(detail::acc_weight[s] * dt)}},
             end - first);
  b.valid -= 2;
  if (b.from) *b.from += 2;
}

// Forward-Euler hyperdiffusion of the stages' result `in` into next_state: the Laplacian,
// then the update (from `in`'s halo, swapped first if too few rings are valid).
void Model::Impl::diffuse(Buffer& in, Band& b) {
  const double a = setup.planet.radius;
  if (b.may_swap && b.valid < 2) refresh_halo(in), b.valid = domain.depth;
  const auto [lap_first, lap_end] = cells(b, 1);
  laplacian.run({{"state", in},
                 {"neighbour", neighbour},
                 {"laplace", laplace},
                 {"lap", lap},
                 {"stride", u32(stride())},
                 {"first", u32(lap_first)}},
                lap_end - lap_first);
  const auto [first, end] = cells(b, 2);
  diffusion.run({{"state", in},
                 {"neighbour", neighbour},
                 {"laplace", laplace},
                 {"lap", lap},
                 {"position", position},
                 {"next", next_state},
                 {"stride", u32(stride())},
                 {"first", u32(first)},
                 {"factor", static_cast<float>(dt * nu / (a * a * a * a))}},
                end - first);
  b.valid -= 2;
  if (b.from) *b.from += 2;
}

// One step's dispatches over a band: state to next_state (through y with hyperdiffusion).
// Returns the halo rings of the result that hold current values.
int Model::Impl::pass(Band b) {
  Buffer& result = nu > 0 ? y : next_state;
  if (fuses(b)) {
    tendencies(state, b, true);
    fused_stages(result, b);
  } else {
    stage(0, state, state, x, b);
    stage(1, x, state, y, b);
    stage(2, y, state, x, b);
    stage(3, x, state, result, b);  // base unused in the last stage
  }
  if (nu > 0) diffuse(y, b);
  return b.valid;
}

// Stages 1-3 read stage 0's input 2, 4 and 6 rings further in than stage 0 (after its swap,
// if any): fused, no swap may fall between them.
bool Model::Impl::fuses(const Band& b) const {
  const int valid = b.may_swap && b.valid < 2 ? domain.depth : b.valid;
  return fusion.has_value() && (!b.may_swap || valid >= 8);
}

// Stage s's tendencies from stage s - 1's (the two halves of `tend` in turn), with that
// stage's update applied where it is read; the cells are those stage s's tendencies take
// in the plain order, so the bands and rings stay as they are.
void Model::Impl::fused_stages(Buffer& result, Band& b) {
  const std::size_t half = stride();
  for (int s = 1; s < 4; ++s) {
    b.valid -= 2;  // stage s - 1's update, applied inside
    if (b.from) *b.from += 2;
    const auto [first, end] = cells(b, 1);
    Args args = tendency_args(state, first);
    args.insert(args.end(), {{"neighbour", neighbour},
                             {"correction", correction},
                             {"acc", acc},
                             {"tend_in", u32((s - 1) % 2 * half)},
                             {"tend_out", u32(s % 2 * half)},
                             {"prev_stage", static_cast<std::int32_t>(s - 1)},
                             {"next_step", static_cast<float>(detail::next_weight[s - 1] * dt)},
                             {"acc_step", static_cast<float>(detail::acc_weight[s - 1] * dt)}});
    fusion->later_stages.run(args, 8 * (end - first));  // eight lanes a cell
  }
  update_stage(3, state, result, b, half);  // stage 3's tendencies are in the second half
}

int Model::Impl::step_dispatches() {
  if (one_dispatch) {
    one_dispatch_step();
    return 0;  // one process: no halo
  }
  // A step's first stage reads the state, whose halo holds the rings the last step left
  // current (none after a swap once a step; more when the halo covers several steps).
  if (state_valid < 2 && overlap) {
    // While the halo travels, the own cells more than a step's rings R inside take the
    // whole step from the own cells alone. Once it has arrived, the rest does: its last
    // update starts R steps inside, where the first pass's ended, and each earlier kernel one
    // step further in, so that it computes whatever it reads itself (from 2R - 1 steps in);
    // the cells both passes compute get the same bits from the same inputs.
    halo->start(state);
    mark("swap started");
    pass({std::nullopt, 0, false});
    mark("inner step");
    halo->finish(state);
    mark("swap done");
    return pass({-2 * step_rings(), domain.depth, false});
  }
  return pass({std::nullopt, state_valid, true});
}

std::vector<detail::Kernel*> Model::Impl::stepping_kernels() {
  std::vector<detail::Kernel*> k{&tendency, &update, &laplacian, &diffusion};
  if (fusion) k.insert(k.end(), {&fusion->first_stage, &fusion->later_stages});
  if (one_dispatch) k.push_back(&one_dispatch->kernel);
  return k;
}

bool Model::Impl::replays_steps() {
  const auto kernels = stepping_kernels();
  return options.replay_steps && team->size() == 1 && timeline == nullptr &&
         std::none_of(kernels.begin(), kernels.end(), [](auto* k) { return k->timing(); });
}

int Model::Impl::replayed_step() {
  const auto key = std::make_tuple(state.gl_name(), state_valid, dt);
  auto it = recorded_steps.find(key);
  if (it == recorded_steps.end() || !it->second.sequence.replayable()) {
    if (recorded_steps.size() >= 8) recorded_steps.clear();  // the time step keeps changing
    RecordedStep r{Sequence(*context, "earth step"), 0};
    r.sequence.capture([&] { r.valid_after = step_dispatches(); });
    it = recorded_steps.insert_or_assign(key, std::move(r)).first;
  }
  it->second.sequence.replay();
  return it->second.valid_after;
}

void Model::Impl::one_step() {
  mark("step");
  state_valid = replays_steps() ? replayed_step() : step_dispatches();
  std::swap(state, next_state);
  time += dt;
  ++steps;
}

void Model::Impl::mark(const char* label) {
  if (timeline != nullptr) timeline->mark(label, steps);
}

void Model::Impl::refresh_halo(Buffer& values) {
  halo->start(values);
  halo->finish(values);
}

Model::Model(const Context& context, const Grid& grid, const CaseSetup& setup,
             const ModelOptions& options)
    : Model(context, grid, setup, options, nullptr) {}

Model::Model(const Context& context, const Grid& grid, const CaseSetup& setup,
             const ModelOptions& options, Team& team)
    : Model(context, grid, setup, options, &team) {}

Model::Model(const Context& context, const Grid& grid, const CaseSetup& setup,
             const ModelOptions& options, Team* team) {
  validate(options);
  const Fields start = initial_fields(grid, setup);
  impl_ = std::make_unique<Impl>(context, grid, setup, options, team);
  Impl& m = *impl_;
  const Subdomain& d = m.domain;
  m.surface = start.surface;
  // Everything below is computed from the whole grid, so every rank gets the same bits.
  m.mean_depth = setup.advection_only ? 0.0 : detail::area_mean(grid, start.height);
  const double deepest = *std::max_element(start.height.begin(), start.height.end());
  m.lowest_depth = setup.advection_only ? -deepest : 0.0;
  m.highest_depth = 2 * deepest;
  for (std::size_t l = 0; l < d.owned; ++l) m.owned_area += grid.areas[d.cells[l]];
  m.max_dt = m.dt = model_time_step(grid, setup, start, options);
  m.nu = hyperdiffusion_coefficient(grid, setup, options);
  const auto tables = detail::device_tables(grid, setup, start, options.continuity_correction, d);
  m.position = floats(context, tables.position);
  m.slot = ints(context, tables.slot);
  m.neighbour = ints(context, tables.neighbour);
  m.correction = floats(context, tables.correction);
  m.laplace = floats(context, tables.laplace);
  m.inv_area = floats(context, tables.inv_area);
  m.state = floats(context, detail::pack_state(start, m.mean_depth, d.cells));
  m.next_state = vec4s(context, d.size());
  m.x = vec4s(context, d.size());
  m.y = vec4s(context, d.size());
  m.acc = vec4s(context, m.stride());
  const bool fuse = fusion_wanted(context, options, grid);
  m.tend = vec4s(context, (fuse ? 2 : 1) * m.stride());
  if (m.nu > 0) m.lap = vec4s(context, m.stride());
  m.halo = m.team->halo(context, d);
  using Overlap = ModelOptions::SwapOverlap;
  const Overlap o = m.options.overlap_swaps;
  m.overlap = m.options.halo_per_step && d.halo() > 0 &&
              (o == Overlap::On || (o == Overlap::Auto && !context.info().is_software));
  m.choose_one_dispatch();
  // The fused kernels only where the step is not one dispatch: compiling them costs start-up.
  if (fuse && !m.one_dispatch) m.fusion = fused_kernels(context, setup, options);
}

Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

void Model::step(long long count) {
  if (count < 0)
    throw ArgumentError(fmt::format("earth model: step count must be >= 0; got {}", count));
  for (long long s = 0; s < count; ++s) impl_->one_step();
}

void Model::run(double seconds, const std::function<void(double)>& progress,
                long long progress_every) {
  const long long steps = steps_for(seconds, impl_->max_dt);
  if (steps == 0) return;
  impl_->dt = seconds / static_cast<double>(steps);
  const long long every = std::max(1LL, progress_every);
  for (long long s = 0; s < steps; ++s) {
    impl_->one_step();
    if ((s + 1) % every == 0 || s + 1 == steps) {
      impl_->check_state();  // waits for the GPU, so the progress below is real
      if (progress) progress(static_cast<double>(s + 1) / static_cast<double>(steps));
    }
  }
}

double Model::time() const {
  return impl_->time;
}
double Model::time_step() const {
  return impl_->dt;
}
double Model::max_time_step() const {
  return impl_->max_dt;
}
long long Model::steps_taken() const {
  return impl_->steps;
}
void Model::set_time_step(double seconds) {
  if (!(seconds > 0) || !std::isfinite(seconds)) {
    throw ArgumentError(fmt::format("earth model: time step must be positive; got {}", seconds));
  }
  impl_->dt = seconds;
}

void Model::check() const {
  impl_->check_state();
}

StepTraffic Model::traffic() const {
  // Bytes per cell, each array element counted once (see model_kernels.hpp):
  //   tendency  state 16 + position 16 + 6 slots x 16 + inv_area 4 + tend 16 = 148
  //   update    tend 16 + 6 x (neighbour 4 + correction 4) = 64, plus per stage
  //             base 16 / acc / next 16: stage 0 +48, stages 1-2 +64, stage 3 +32
  //   diffusion laplacian 16 + 48 + 16 = 80; diffusion 16 + 48 + 32 + 16 = 112
  //   fused     a tendency with the previous stage's update: the update's bytes less base
  //             (the tendency's state) and next (never stored): 32 fewer
  // Each stage covers the rings its halo still holds (partition.hpp), as one_step runs it.
  // A step's average over the steps one halo swap covers (ModelOptions::halo_steps); the
  // band a swap's step computes twice (one_step, about 2 x 8 rings of own cells) is left out.
  const Subdomain& d = impl_->domain;
  constexpr double update_bytes[4] = {64 + 48, 64 + 64, 64 + 64, 64 + 32};
  auto cells = [&](int rings) { return static_cast<double>(d.within(rings)); };
  const int steps = impl_->options.halo_per_step ? impl_->options.halo_steps : 1;
  const bool fused = impl_->fusion && !impl_->one_dispatch && impl_->options.halo_per_step;
  double bytes = 0;
  int valid = 0;
  for (int step = 0; step < steps; ++step) {
    for (int s = 0; s < 4; ++s, valid -= 2) {
      if (valid < 2) valid = d.depth;
      const double merged = fused && s > 0 ? update_bytes[s - 1] - 32 : 0;
      bytes += (148 + merged) * cells(valid - 1);
      if (!fused || s == 3) bytes += update_bytes[s] * cells(valid - 2);
    }
    if (impl_->nu > 0) {
      if (valid < 2) valid = d.depth;
      bytes += 80 * cells(valid - 1) + 112 * cells(valid - 2);
      valid -= 2;
    }
  }
  if (impl_->one_dispatch) return {bytes, 1};
  return {bytes / steps, (fused ? 5 : 8) + (impl_->nu > 0 ? 2 : 0)};
}

void Model::set_kernel_timing(bool on) {
  for (detail::Kernel* k : impl_->stepping_kernels()) k->set_timing(on);
}

void Model::set_timeline(Timeline* timeline) {
  impl_->timeline = timeline;
}

KernelTimes Model::kernel_times() const {
  const Impl& m = *impl_;
  KernelTimes t;
  // Fused stages and one-dispatch steps count as tendencies.
  double fused_ms =
      m.fusion ? m.fusion->first_stage.total_ms() + m.fusion->later_stages.total_ms() : 0;
  long long fused_timed =
      m.fusion ? m.fusion->first_stage.timed() + m.fusion->later_stages.timed() : 0;
  if (m.one_dispatch) {
    fused_ms += m.one_dispatch->kernel.total_ms();
    fused_timed += m.one_dispatch->kernel.timed();
  }
  t.tendency_ms = m.tendency.total_ms() + fused_ms;
  t.update_ms = m.update.total_ms();
  t.diffusion_ms = m.laplacian.total_ms() + m.diffusion.total_ms();
  t.tendency_dispatches = m.tendency.timed() + fused_timed;
  t.update_dispatches = m.update.timed();
  t.dispatches =
      t.tendency_dispatches + t.update_dispatches + m.laplacian.timed() + m.diffusion.timed();
  t.available = m.context->info().has_timer_query();
  return t;
}

void Model::reset_kernel_times() {
  for (detail::Kernel* k : impl_->stepping_kernels()) k->reset();
}

const Grid& Model::grid() const {
  return *impl_->grid;
}
const CaseSetup& Model::setup() const {
  return impl_->setup;
}
const ModelOptions& Model::options() const {
  return impl_->options;
}
double Model::mean_depth() const {
  return impl_->mean_depth;
}
const Subdomain& Model::subdomain() const {
  return impl_->domain;
}
Team& Model::team() const {
  return *impl_->team;
}

}  // namespace gpgpu::earth
