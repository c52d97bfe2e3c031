// Model: what leaves the device — the fields, vorticity, tendencies and global sums, each
// rank's own cells put back into global order and gathered on rank 0 (summed, for the
// sums) — and the state check that stops a run which blew up.
#include <array>
#include <cmath>
#include <span>

#include <fmt/format.h>

#include "earth/global_sums.hpp"
#include "earth/model_geometry.hpp"
#include "earth/model_impl.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"

namespace gpgpu::earth {

namespace {

constexpr double degrees = 180.0 / 3.14159265358979323846;

// Fields from 4 floats per cell (h - mean_depth or dh/dt, u); empty for no cells.
Fields unpack(const std::vector<float>& v, double mean_depth, const std::vector<double>& surface) {
  Fields f;
  if (v.empty()) return f;
  const std::size_t n = v.size() / 4;
  f.height.resize(n);
  f.velocity.resize(n);
  f.surface = surface;
  for (std::size_t i = 0; i < n; ++i) {
    f.height[i] = mean_depth + static_cast<double>(v[4 * i]);
    f.velocity[i] = {v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]};
  }
  return f;
}

// What is wrong with one cell's stored state, or "" when nothing is. The depth is compared
// in float32, as the check kernel does, so that both agree on cells at the range's ends.
std::string cell_problem(const float* s, float mean_depth, float lowest, float highest) {
  if (!std::isfinite(s[0])) return fmt::format("depth h is {}", s[0]);
  if (!std::isfinite(s[1]) || !std::isfinite(s[2]) || !std::isfinite(s[3]))
    return fmt::format("velocity u is ({}, {}, {}) m/s", s[1], s[2], s[3]);
  const float h = mean_depth + s[0];
  if (!(h > lowest && h < highest)) {
    return fmt::format("depth h = {:.6g} m is outside its physical range ({:.6g}, {:.6g}) m", h,
                       lowest, highest);
  }
  return "";
}

}  // namespace

std::vector<float> Model::Impl::download_owned(const Buffer& b) const {
  std::vector<float> v(4 * domain.owned);
  b.download(std::span<float>(v));
  return v;
}

std::vector<float> Model::Impl::gather_owned(const Buffer& b) const {
  const auto local = download_owned(b);
  std::vector<float> part(local.size());
  for (std::size_t l = 0; l < domain.owned; ++l) {
    const std::size_t at = 4 * (static_cast<std::size_t>(domain.cells[l]) - domain.first);
    for (int c = 0; c < 4; ++c) part[at + c] = local[4 * l + c];
  }
  return team->gather(part);
}

std::string Model::Impl::state_problem() {
  const auto h0 = static_cast<float>(mean_depth), lo = static_cast<float>(lowest_depth),
             hi = static_cast<float>(highest_depth);
  check.run(
      {{"state", state}, {"flags", tend}, {"mean_depth", h0}, {"lowest", lo}, {"highest", hi}},
      domain.owned);
  const auto flags = reduce_vector<float>(*context, tend, 4, Op::Max, {0, domain.owned});
  if (flags[0] == 0 && flags[1] == 0 && flags[2] == 0) return "";
  // Rare: find the first broken cell in global order and say what is wrong with it.
  const auto s = download_owned(state);
  std::size_t worst = domain.owned;
  std::string what = "the device's check flagged a cell the host copy finds sane";
  for (std::size_t l = 0; l < domain.owned; ++l) {
    std::string p = cell_problem(&s[4 * l], h0, lo, hi);
    if (!p.empty() && (worst == domain.owned || domain.cells[l] < domain.cells[worst]))
      worst = l, what = std::move(p);
  }
  std::string where;
  if (worst < domain.owned) {
    const Vec3& r = grid->centres[domain.cells[worst]];
    where = fmt::format(" at cell {} (lat {:.2f}, lon {:.2f})", domain.cells[worst],
                        latitude(r) * degrees, longitude(r) * degrees);
  }
  return fmt::format(
      "earth: the state blew up (found at step {}, day {:.3f}): {}{}; a shorter time step "
      "(a smaller Courant number) or hyperdiffusion may help",
      steps, time / 86400.0, what, where);
}

void Model::Impl::check_state() {
  if (one_dispatch_gave_up()) {
    throw LimitError(
        "earth model: a one-dispatch step's work groups did not all run at once (a grid-wide "
        "wait gave up), so the steps since the last check are wrong; set "
        "ModelOptions::one_dispatch_steps Off");
  }
  const std::string problem = team->first_message(state_problem());
  if (!problem.empty()) throw InstabilityError(problem);
}

Fields Model::fields() const {
  return unpack(impl_->gather_owned(impl_->state), impl_->mean_depth, impl_->surface);
}

void Model::set_fields(const Fields& fields) {
  const std::size_t n = impl_->grid->cell_count();
  if (fields.height.size() != n || fields.velocity.size() != n) {
    throw SizeMismatchError(
        fmt::format("earth model: set_fields needs {} heights and velocities; got {} and {}", n,
                    fields.height.size(), fields.velocity.size()));
  }
  impl_->state.upload(detail::pack_state(fields, impl_->mean_depth, impl_->domain.cells));
  impl_->state_valid = 0;  // swapped again before the next step reads it
}

std::vector<double> Model::vorticity() const {
  Impl& m = *impl_;
  m.refresh_halo(m.state);
  m.diagnose.run(m.tendency_args(m.state, 0), m.domain.owned);
  const auto d = m.gather_owned(m.tend);
  std::vector<double> zeta(d.size() / 4);
  for (std::size_t i = 0; i < zeta.size(); ++i) zeta[i] = d[4 * i + 3] / m.grid->areas[i];
  return zeta;
}

GlobalSums Model::sums() const {
  Impl& m = *impl_;
  m.refresh_halo(m.state);
  m.diagnose.run(m.tendency_args(m.state, 0), m.domain.owned);
  const auto s = detail::global_sums(*m.context, m.tend, m.domain.owned);
  const double a2 = m.setup.planet.radius * m.setup.planet.radius;
  std::array<double, 4> g{a2 * (m.mean_depth * m.owned_area + s[0]), a2 * s[1], a2 * s[2],
                          a2 * s[3]};
  m.team->sum(g);
  return {g[0], g[1], g[2], g[3]};
}

Fields Model::raw_tendency() const {
  Impl& m = *impl_;
  Model::Impl::Band all{std::nullopt, 0, true};  // swap the state's halo first
  m.tendencies(m.state, all, false);
  return unpack(m.gather_owned(m.tend), 0.0, m.surface);
}

}  // namespace gpgpu::earth
