// Model: the shallow-water model on the GPU (see gpgpu/earth/model.hpp).
#include "gpgpu/earth/model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include <fmt/format.h>

#include "earth/global_sums.hpp"
#include "earth/model_geometry.hpp"
#include "earth/model_kernels.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth {

namespace {

// A kernel that takes only the arguments it declares: variants compiled with different
// defines drop uniforms (the advection kernel has no gravity), and gpgpu rejects values for
// variables a kernel does not have.
class Kernel {
 public:
  Kernel(const Context& ctx, const std::string& source, const Defines& defines, std::string label)
      : kernel_(ctx, source, defines, std::move(label)) {
    for (const auto& v : kernel_.variables()) {
      names_.insert(v.name);
      if (!v.alias.empty()) names_.insert(v.alias);
    }
  }
  void run(const Args& args, std::size_t items) {
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
  void set_timing(bool on) {
    timing_ = on;
    kernel_.set_timing(on);
  }
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

Buffer floats(const Context& ctx, const std::vector<float>& v) {
  return Buffer::from(ctx, v);
}
Buffer ints(const Context& ctx, const std::vector<std::int32_t>& v) {
  return Buffer::from(ctx, v);
}

Defines tendency_defines(const CaseSetup& s, const ModelOptions& o) {
  Defines d;
  if (s.advection_only) d.emplace_back("ADVECTION_ONLY", "");
  if (o.preload_neighbours) d.emplace_back("PRELOAD", "");
  return d;
}

std::array<float, 3> to_float3(const Vec3& v) {
  return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
}

}  // namespace

struct Model::Impl {
  const Context* context;
  const Grid* grid;
  CaseSetup setup;
  ModelOptions options;
  std::size_t n;
  double mean_depth = 0, max_dt = 0, dt = 0, time = 0, nu = 0, total_area = 0;
  std::vector<double> surface;

  Kernel tendency, diagnose, update, laplacian, diffusion;
  Buffer state, x, y, acc, tend, lap;
  Buffer position, slot, neighbour, correction, laplace, inv_area;

  Impl(const Context& ctx, const Grid& g, const CaseSetup& s, const ModelOptions& o)
      : context(&ctx),
        grid(&g),
        setup(s),
        options(o),
        n(g.cell_count()),
        tendency(ctx, detail::tendency_kernel_source(o.work_group_size), tendency_defines(s, o),
                 "earth tendency"),
        diagnose(ctx, detail::tendency_kernel_source(o.work_group_size), {{"DIAGNOSE", ""}},
                 "earth diagnostics"),
        update(ctx, detail::update_kernel_source(o.work_group_size), {}, "earth update"),
        laplacian(ctx, detail::laplacian_kernel_source(o.work_group_size), {}, "earth laplacian"),
        diffusion(ctx, detail::diffusion_kernel_source(o.work_group_size), {},
                  "earth hyperdiffusion") {}

  Args tendency_args(const Buffer& in) const {
    return {{"state", in},
            {"position", position},
            {"slot", slot},
            {"inv_area", inv_area},
            {"tend", tend},
            {"mean_depth", static_cast<float>(mean_depth)},
            {"gravity", static_cast<float>(setup.planet.gravity)},
            {"coriolis_axis", to_float3(setup.coriolis_axis() * (2 * setup.planet.omega))},
            {"radius", static_cast<float>(setup.planet.radius)}};
  }

  // Runge-Kutta stage s: tendency of `in`, then next = base + a dt k, acc += b dt k.
  void stage(int s, const Buffer& in, const Buffer& base, Buffer& next) {
    constexpr double next_weight[4] = {0.5, 0.5, 1.0, 0.0};
    constexpr double acc_weight[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
    tendency.run(tendency_args(in), n);
    update.run({{"tend", tend},
                {"neighbour", neighbour},
                {"correction", correction},
                {"base", base},
                {"acc", acc},
                {"next", next},
                {"stage", static_cast<std::int32_t>(s)},
                {"next_step", static_cast<float>(next_weight[s] * dt)},
                {"acc_step", static_cast<float>(acc_weight[s] * dt)}},
               n);
  }

  void one_step() {
    stage(0, state, state, x);
    stage(1, x, state, y);
    stage(2, y, state, x);
    stage(3, x, y, state);  // base unused in the last stage: any buffer it does not write
    if (nu > 0) {
      const double a = setup.planet.radius;
      laplacian.run(
          {{"state", state}, {"neighbour", neighbour}, {"laplace", laplace}, {"lap", lap}}, n);
      diffusion.run({{"state", state},
                     {"neighbour", neighbour},
                     {"laplace", laplace},
                     {"lap", lap},
                     {"position", position},
                     {"factor", static_cast<float>(dt * nu / (a * a * a * a))}},
                    n);
    }
    time += dt;
  }

  std::vector<float> download_vec4(const Buffer& b) const {
    std::vector<float> v(4 * n);
    b.download(std::span<float>(v));
    return v;
  }
};

Model::Model(const Context& context, const Grid& grid, const CaseSetup& setup,
             const ModelOptions& options) {
  validate(options);
  const Fields start = initial_fields(grid, setup);
  impl_ = std::make_unique<Impl>(context, grid, setup, options);
  Impl& m = *impl_;
  m.surface = start.surface;
  m.mean_depth = setup.advection_only ? 0.0 : detail::area_mean(grid, start.height);
  for (double a : grid.areas) m.total_area += a;
  m.max_dt = m.dt = model_time_step(grid, setup, start, options);
  m.nu = hyperdiffusion_coefficient(grid, setup, options);
  const auto tables = detail::device_tables(grid, setup, start, options.continuity_correction);
  m.position = floats(context, tables.position);
  m.slot = ints(context, tables.slot);
  m.neighbour = ints(context, tables.neighbour);
  m.correction = floats(context, tables.correction);
  m.laplace = floats(context, tables.laplace);
  m.inv_area = floats(context, tables.inv_area);
  m.state = floats(context, detail::pack_state(start, m.mean_depth));
  for (Buffer* b : {&m.x, &m.y, &m.acc, &m.tend})
    *b = Buffer(context, ElementType::Float32, 4 * m.n);
  if (m.nu > 0) m.lap = Buffer(context, ElementType::Float32, 4 * m.n);
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
    if (progress && ((s + 1) % every == 0 || s + 1 == steps)) {
      impl_->context->finish();
      progress(static_cast<double>(s + 1) / static_cast<double>(steps));
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
void Model::set_time_step(double seconds) {
  if (!(seconds > 0) || !std::isfinite(seconds)) {
    throw ArgumentError(fmt::format("earth model: time step must be positive; got {}", seconds));
  }
  impl_->dt = seconds;
}

Fields Model::fields() const {
  const auto s = impl_->download_vec4(impl_->state);
  Fields f;
  f.height.resize(impl_->n);
  f.velocity.resize(impl_->n);
  f.surface = impl_->surface;
  for (std::size_t i = 0; i < impl_->n; ++i) {
    f.height[i] = impl_->mean_depth + static_cast<double>(s[4 * i]);
    f.velocity[i] = {s[4 * i + 1], s[4 * i + 2], s[4 * i + 3]};
  }
  return f;
}

void Model::set_fields(const Fields& fields) {
  if (fields.height.size() != impl_->n || fields.velocity.size() != impl_->n) {
    throw SizeMismatchError(
        fmt::format("earth model: set_fields needs {} heights and velocities; got {} and {}",
                    impl_->n, fields.height.size(), fields.velocity.size()));
  }
  impl_->state.upload(detail::pack_state(fields, impl_->mean_depth));
}

std::vector<double> Model::vorticity() const {
  Impl& m = *impl_;
  m.diagnose.run(m.tendency_args(m.state), m.n);
  const auto d = m.download_vec4(m.tend);
  std::vector<double> zeta(m.n);
  for (std::size_t i = 0; i < m.n; ++i) zeta[i] = d[4 * i + 3] / m.grid->areas[i];
  return zeta;
}

GlobalSums Model::sums() const {
  Impl& m = *impl_;
  m.diagnose.run(m.tendency_args(m.state), m.n);
  const auto s = detail::global_sums(*m.context, m.tend, m.n);
  const double a2 = m.setup.planet.radius * m.setup.planet.radius;
  GlobalSums g;
  g.mass = a2 * (m.mean_depth * m.total_area + s[0]);
  g.energy = a2 * s[1];
  g.potential_enstrophy = a2 * s[2];
  g.circulation = a2 * s[3];
  return g;
}

Fields Model::raw_tendency() const {
  Impl& m = *impl_;
  m.tendency.run(m.tendency_args(m.state), m.n);
  const auto t = m.download_vec4(m.tend);
  Fields f;
  f.height.resize(m.n);
  f.velocity.resize(m.n);
  f.surface = m.surface;
  for (std::size_t i = 0; i < m.n; ++i) {
    f.height[i] = t[4 * i];
    f.velocity[i] = {t[4 * i + 1], t[4 * i + 2], t[4 * i + 3]};
  }
  return f;
}

StepTraffic Model::traffic() const {
  // Bytes per cell, each array element counted once (see model_kernels.hpp):
  //   tendency  state 16 + position 16 + 6 slots x 16 + inv_area 4 + tend 16 = 148
  //   update    tend 16 + 6 x (neighbour 4 + correction 4) = 64, plus per stage
  //             base 16 / acc / next 16: stage 0 +48, stages 1-2 +64, stage 3 +32
  //   diffusion laplacian 16 + 48 + 16 = 80; diffusion 16 + 48 + 32 + 16 = 112
  double per_cell = 4 * 148.0 + (64 + 48) + 2 * (64 + 64) + (64 + 32);
  int dispatches = 8;
  if (impl_->nu > 0) {
    per_cell += 80 + 112;
    dispatches += 2;
  }
  return {per_cell * static_cast<double>(impl_->n), dispatches};
}

void Model::set_kernel_timing(bool on) {
  for (Kernel* k : {&impl_->tendency, &impl_->update, &impl_->laplacian, &impl_->diffusion})
    k->set_timing(on);
}

KernelTimes Model::kernel_times() const {
  const Impl& m = *impl_;
  KernelTimes t;
  t.tendency_ms = m.tendency.total_ms();
  t.update_ms = m.update.total_ms();
  t.diffusion_ms = m.laplacian.total_ms() + m.diffusion.total_ms();
  t.dispatches = m.tendency.timed() + m.update.timed() + m.laplacian.timed() + m.diffusion.timed();
  t.available = m.context->info().has_timer_query();
  return t;
}

void Model::reset_kernel_times() {
  for (Kernel* k : {&impl_->tendency, &impl_->update, &impl_->laplacian, &impl_->diffusion})
    k->reset();
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

}  // namespace gpgpu::earth
