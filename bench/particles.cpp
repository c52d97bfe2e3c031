#include "particles.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::bench {

namespace {

// Shared by the three layouts: LOAD_* and STORE_* come from each layout's block.
constexpr const char* step_body = R"(
layout(local_size_x = LOCAL) in;
uniform float dt;
#if FORCES
uniform vec3 gravity;
uniform vec3 field;
uniform float drag;
#endif
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  vec3 vel = LOAD_VEL(i);
#if FORCES
  float m = LOAD_MASS(i);
  float q = LOAD_CHARGE(i);
  vec3 force = m * gravity + q * field - drag * vel;
  vel += force * (dt / m);
  STORE_VEL(i, vel);
#endif
  STORE_POS(i, LOAD_POS(i) + vel * dt);
}
)";

constexpr const char* aos_block = R"(
struct Particle { vec3 pos; float mass; vec3 vel; float charge; vec4 color; };
layout(std430, binding = 0) buffer Particles { Particle p[]; };
#define LOAD_POS(i) p[i].pos
#define LOAD_VEL(i) p[i].vel
#define LOAD_MASS(i) p[i].mass
#define LOAD_CHARGE(i) p[i].charge
#define STORE_POS(i, v) p[i].pos = (v)
#define STORE_VEL(i, v) p[i].vel = (v)
)";

constexpr const char* soa_block = R"(
layout(std430, binding = 0) buffer PX { float px[]; };
layout(std430, binding = 1) buffer PY { float py[]; };
layout(std430, binding = 2) buffer PZ { float pz[]; };
layout(std430, binding = 3) buffer VX { float vx[]; };
layout(std430, binding = 4) buffer VY { float vy[]; };
layout(std430, binding = 5) buffer VZ { float vz[]; };
#if FORCES
layout(std430, binding = 6) readonly buffer M { float mass[]; };
layout(std430, binding = 7) readonly buffer Q { float charge[]; };
#endif
#define LOAD_POS(i) vec3(px[i], py[i], pz[i])
#define LOAD_VEL(i) vec3(vx[i], vy[i], vz[i])
#define LOAD_MASS(i) mass[i]
#define LOAD_CHARGE(i) charge[i]
#define STORE_POS(i, v) { vec3 s_ = (v); px[i] = s_.x; py[i] = s_.y; pz[i] = s_.z; }
#define STORE_VEL(i, v) { vec3 s_ = (v); vx[i] = s_.x; vy[i] = s_.y; vz[i] = s_.z; }
)";

constexpr const char* soa_vec4_block = R"(
layout(std430, binding = 0) buffer PosMass { vec4 pos_mass[]; };
layout(std430, binding = 1) buffer VelCharge { vec4 vel_charge[]; };
#define LOAD_POS(i) pos_mass[i].xyz
#define LOAD_VEL(i) vel_charge[i].xyz
#define LOAD_MASS(i) pos_mass[i].w
#define LOAD_CHARGE(i) vel_charge[i].w
#define STORE_POS(i, v) pos_mass[i].xyz = (v)
#define STORE_VEL(i, v) vel_charge[i].xyz = (v)
)";

// Where each layout keeps a particle: its buffers, each an interleaving of fields (0..7 are
// px py pz vx vy vz mass charge, 8..11 the colour's four channels). A buffer of mass and
// charge only (SoA's) is bound only to the step, whose forces read it.
struct LayoutInfo {
  const char* block;
  const char* label;
  std::vector<std::pair<const char*, std::vector<int>>> buffers;
};

const LayoutInfo& layout_info(ParticleLayout layout) {
  static const std::vector<LayoutInfo> layouts = [] {
    std::vector<LayoutInfo> l{{aos_block,
                               "AoS (48-byte struct)",
                               {{"Particles", {0, 1, 2, 6, 3, 4, 5, 7, 8, 9, 10, 11}}}},
                              {soa_block, "SoA (8 float arrays)", {}},
                              {soa_vec4_block,
                               "SoA of vec4 (pos+mass, vel+charge)",
                               {{"pos_mass", {0, 1, 2, 6}}, {"vel_charge", {3, 4, 5, 7}}}}};
    const char* soa_names[] = {"px", "py", "pz", "vx", "vy", "vz", "mass", "charge"};
    for (int f = 0; f < 8; ++f) l[1].buffers.push_back({soa_names[f], {f}});
    return l;
  }();
  return layouts[static_cast<std::size_t>(layout)];
}

// Field f of particle i (a colour channel for f >= 8).
template <class P>
auto& field(P& p, int f, std::size_t i) {
  decltype(&p.px) fields[] = {&p.px, &p.py, &p.pz, &p.vx, &p.vy, &p.vz, &p.mass, &p.charge};
  return f < 8 ? (*fields[f])[i] : p.color[4 * i + static_cast<std::size_t>(f - 8)];
}

// Calls f(k, field, particle) for each float k of a buffer's interleaving of fields.
template <class F>
void interleave(const std::vector<int>& fields, std::size_t count, const F& f) {
  for (std::size_t k = 0; k < fields.size() * count; ++k) {
    f(k, fields[k % fields.size()], k / fields.size());
  }
}

Particles sized(std::size_t n) {
  Particles p;
  for (auto* v : {&p.px, &p.py, &p.pz, &p.vx, &p.vy, &p.vz, &p.mass, &p.charge}) v->resize(n);
  p.color.resize(4 * n);
  return p;
}

}  // namespace

std::string to_string(ParticleLayout layout) {
  return layout_info(layout).label;
}

Particles random_particles(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> pos(-10.0f, 10.0f), vel(-1.0f, 1.0f), mass(0.5f, 2.0f),
      unit(0.0f, 1.0f);
  // Drawn field by field in field()'s order: position, velocity, mass, charge, colour.
  decltype(&pos) range[] = {&pos,  &pos, &pos,  &vel,  &vel,  &vel,
                            &mass, &vel, &unit, &unit, &unit, &unit};
  Particles p = sized(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (int f = 0; f < 12; ++f) field(p, f, i) = (*range[f])(rng);
  }
  return p;
}

void cpu_step(Particles& p, const ParticleParams& k) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    for (int d = 0; d < 3; ++d) {
      const auto dd = static_cast<std::size_t>(d);
      float& v = field(p, 3 + d, i);
      v +=
          (p.mass[i] * k.gravity[dd] + p.charge[i] * k.field[dd] - k.drag * v) * (k.dt / p.mass[i]);
      field(p, d, i) += v * k.dt;
    }
  }
}

void cpu_drift(Particles& p, const ParticleParams& k) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    for (int d = 0; d < 3; ++d) field(p, d, i) += field(p, 3 + d, i) * k.dt;
  }
}

DeviceParticles::DeviceParticles(const Context& context, ParticleLayout layout, const Particles& h,
                                 int local_size)
    : layout_(layout), count_(h.size()) {
  if (count_ == 0) throw ArgumentError("DeviceParticles: no particles");
  const LayoutInfo& info = layout_info(layout);
  for (const auto& buffer : info.buffers) {
    std::vector<float> packed(buffer.second.size() * count_);
    interleave(buffer.second, count_,
               [&](std::size_t k, int f, std::size_t i) { packed[k] = field(h, f, i); });
    buffers_.push_back(Buffer::from(context, packed));
  }
  for (const bool forces : {true, false}) {
    (forces ? step_ : drift_) = std::make_unique<ComputeKernel>(
        context, std::string(info.block) + step_body,
        Defines{{"LOCAL", std::to_string(local_size)}, {"FORCES", forces ? "1" : "0"}},
        fmt::format("particles {} {}", info.label, forces ? "step" : "drift"));
  }
}

Args DeviceParticles::args(const ParticleParams& k, bool with_forces) const {
  Args a{{"dt", k.dt}};
  if (with_forces) {
    a.emplace_back("gravity", k.gravity);
    a.emplace_back("field", k.field);
    a.emplace_back("drag", k.drag);
  }
  const auto& buffers = layout_info(layout_).buffers;
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    if (with_forces || buffers[b].second[0] < 6) a.emplace_back(buffers[b].first, buffers_[b]);
  }
  return a;
}

Particles DeviceParticles::download() const {
  Particles h = sized(count_);
  const auto& buffers = layout_info(layout_).buffers;
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    const auto packed = buffers_[b].to_vector<float>();
    interleave(buffers[b].second, count_,
               [&](std::size_t k, int f, std::size_t i) { field(h, f, i) = packed[k]; });
  }
  if (layout_ != ParticleLayout::AoS) h.color.clear();  // not on the device in this layout
  return h;
}

}  // namespace gpgpu::bench
