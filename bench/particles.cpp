#include "particles.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::bench {

namespace {

// Shared by the three layouts: LOAD_* and STORE_* come from each layout's block.
constexpr const char* step_body = R"(
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
layout(local_size_x = LOCAL) in;
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
layout(local_size_x = LOCAL) in;
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
layout(local_size_x = LOCAL) in;
layout(std430, binding = 0) buffer PosMass { vec4 pos_mass[]; };
layout(std430, binding = 1) buffer VelCharge { vec4 vel_charge[]; };
#define LOAD_POS(i) pos_mass[i].xyz
#define LOAD_VEL(i) vel_charge[i].xyz
#define LOAD_MASS(i) pos_mass[i].w
#define LOAD_CHARGE(i) vel_charge[i].w
#define STORE_POS(i, v) pos_mass[i].xyz = (v)
#define STORE_VEL(i, v) vel_charge[i].xyz = (v)
)";

const char* block_for(ParticleLayout layout) {
  switch (layout) {
    case ParticleLayout::AoS:
      return aos_block;
    case ParticleLayout::SoA:
      return soa_block;
    case ParticleLayout::SoAVec4:
      return soa_vec4_block;
  }
  return aos_block;
}

constexpr const char* soa_names[] = {"px", "py", "pz", "vx", "vy", "vz", "mass", "charge"};

}  // namespace

std::string to_string(ParticleLayout layout) {
  switch (layout) {
    case ParticleLayout::AoS:
      return "AoS (48-byte struct)";
    case ParticleLayout::SoA:
      return "SoA (8 float arrays)";
    case ParticleLayout::SoAVec4:
      return "SoA of vec4 (pos+mass, vel+charge)";
  }
  return "?";
}

Particles random_particles(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> pos(-10.0f, 10.0f), vel(-1.0f, 1.0f), mass(0.5f, 2.0f),
      unit(0.0f, 1.0f);
  Particles p;
  for (auto* v : {&p.px, &p.py, &p.pz, &p.vx, &p.vy, &p.vz, &p.mass, &p.charge}) v->resize(n);
  p.color.resize(4 * n);
  for (std::size_t i = 0; i < n; ++i) {
    p.px[i] = pos(rng);
    p.py[i] = pos(rng);
    p.pz[i] = pos(rng);
    p.vx[i] = vel(rng);
    p.vy[i] = vel(rng);
    p.vz[i] = vel(rng);
    p.mass[i] = mass(rng);
    p.charge[i] = vel(rng);
    for (int c = 0; c < 4; ++c) p.color[4 * i + static_cast<std::size_t>(c)] = unit(rng);
  }
  return p;
}

void cpu_step(Particles& p, const ParticleParams& k) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    const float m = p.mass[i], q = p.charge[i], s = k.dt / m;
    float* v[3] = {&p.vx[i], &p.vy[i], &p.vz[i]};
    float* x[3] = {&p.px[i], &p.py[i], &p.pz[i]};
    for (int d = 0; d < 3; ++d) {
      const auto dd = static_cast<std::size_t>(d);
      const float force = m * k.gravity[dd] + q * k.field[dd] - k.drag * *v[d];
      *v[d] += force * s;
      *x[d] += *v[d] * k.dt;
    }
  }
}

void cpu_drift(Particles& p, const ParticleParams& k) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    p.px[i] += p.vx[i] * k.dt;
    p.py[i] += p.vy[i] * k.dt;
    p.pz[i] += p.vz[i] * k.dt;
  }
}

DeviceParticles::DeviceParticles(const Context& context, ParticleLayout layout, const Particles& h,
                                 int local_size)
    : layout_(layout), count_(h.size()) {
  if (count_ == 0) throw ArgumentError("DeviceParticles: no particles");
  const std::size_t n = count_;
  switch (layout) {
    case ParticleLayout::AoS: {
      std::vector<float> packed(12 * n);
      for (std::size_t i = 0; i < n; ++i) {
        float* q = &packed[12 * i];
        q[0] = h.px[i], q[1] = h.py[i], q[2] = h.pz[i], q[3] = h.mass[i];
        q[4] = h.vx[i], q[5] = h.vy[i], q[6] = h.vz[i], q[7] = h.charge[i];
        for (std::size_t c = 0; c < 4; ++c) q[8 + c] = h.color[4 * i + c];
      }
      buffers_.push_back(Buffer::from(context, packed));
      break;
    }
    case ParticleLayout::SoA:
      for (const auto* v : {&h.px, &h.py, &h.pz, &h.vx, &h.vy, &h.vz, &h.mass, &h.charge}) {
        buffers_.push_back(Buffer::from(context, *v));
      }
      break;
    case ParticleLayout::SoAVec4: {
      std::vector<float> pm(4 * n), vq(4 * n);
      for (std::size_t i = 0; i < n; ++i) {
        pm[4 * i] = h.px[i], pm[4 * i + 1] = h.py[i], pm[4 * i + 2] = h.pz[i],
               pm[4 * i + 3] = h.mass[i];
        vq[4 * i] = h.vx[i], vq[4 * i + 1] = h.vy[i], vq[4 * i + 2] = h.vz[i],
               vq[4 * i + 3] = h.charge[i];
      }
      buffers_.push_back(Buffer::from(context, pm));
      buffers_.push_back(Buffer::from(context, vq));
      break;
    }
  }
  const std::string source = std::string(block_for(layout)) + step_body;
  const std::string label = "particles " + to_string(layout);
  step_ = std::make_unique<ComputeKernel>(
      context, source, Defines{{"LOCAL", std::to_string(local_size)}, {"FORCES", "1"}},
      label + " step");
  drift_ = std::make_unique<ComputeKernel>(
      context, source, Defines{{"LOCAL", std::to_string(local_size)}, {"FORCES", "0"}},
      label + " drift");
}

Args DeviceParticles::args(const ParticleParams& k, bool with_forces) const {
  Args a{{"dt", k.dt}};
  if (with_forces) {
    a.emplace_back("gravity", k.gravity);
    a.emplace_back("field", k.field);
    a.emplace_back("drag", k.drag);
  }
  switch (layout_) {
    case ParticleLayout::AoS:
      a.emplace_back("Particles", buffers_[0]);
      break;
    case ParticleLayout::SoA:
      for (std::size_t b = 0; b < (with_forces ? 8u : 6u); ++b)
        a.emplace_back(soa_names[b], buffers_[b]);
      break;
    case ParticleLayout::SoAVec4:
      a.emplace_back("pos_mass", buffers_[0]);
      a.emplace_back("vel_charge", buffers_[1]);
      break;
  }
  return a;
}

void DeviceParticles::step(const ParticleParams& params) {
  step_->run(args(params, true), count_);
}
void DeviceParticles::drift(const ParticleParams& params) {
  drift_->run(args(params, false), count_);
}

Particles DeviceParticles::download() const {
  const std::size_t n = count_;
  Particles h;
  for (auto* v : {&h.px, &h.py, &h.pz, &h.vx, &h.vy, &h.vz, &h.mass, &h.charge}) v->resize(n);
  h.color.resize(4 * n);
  switch (layout_) {
    case ParticleLayout::AoS: {
      const auto packed = buffers_[0].to_vector<float>();
      for (std::size_t i = 0; i < n; ++i) {
        const float* q = &packed[12 * i];
        h.px[i] = q[0], h.py[i] = q[1], h.pz[i] = q[2], h.mass[i] = q[3];
        h.vx[i] = q[4], h.vy[i] = q[5], h.vz[i] = q[6], h.charge[i] = q[7];
        for (std::size_t c = 0; c < 4; ++c) h.color[4 * i + c] = q[8 + c];
      }
      break;
    }
    case ParticleLayout::SoA: {
      std::vector<float>* out[] = {&h.px, &h.py, &h.pz, &h.vx, &h.vy, &h.vz, &h.mass, &h.charge};
      for (std::size_t b = 0; b < 8; ++b) *out[b] = buffers_[b].to_vector<float>();
      h.color.clear();  // not on the device in this layout
      break;
    }
    case ParticleLayout::SoAVec4: {
      const auto pm = buffers_[0].to_vector<float>(), vq = buffers_[1].to_vector<float>();
      for (std::size_t i = 0; i < n; ++i) {
        h.px[i] = pm[4 * i], h.py[i] = pm[4 * i + 1], h.pz[i] = pm[4 * i + 2],
        h.mass[i] = pm[4 * i + 3];
        h.vx[i] = vq[4 * i], h.vy[i] = vq[4 * i + 1], h.vz[i] = vq[4 * i + 2],
        h.charge[i] = vq[4 * i + 3];
      }
      h.color.clear();
      break;
    }
  }
  return h;
}

std::size_t DeviceParticles::bytes_per_particle() const {
  return layout_ == ParticleLayout::AoS ? 48 : 32;
}

}  // namespace gpgpu::bench
