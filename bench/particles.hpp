// bench/particles.hpp — one particle step in three memory layouts (seed 004: "structure of
// arrays vs array of structures"), for the soa benchmark and its correctness test.
//
//   AoS      struct Particle { vec3 pos; float mass; vec3 vel; float charge; vec4 color; }
//            — 48 bytes a particle in std430; the step leaves color alone, as a renderer's
//            field would be, yet it shares the cache lines the step loads.
//   SoA      one float array per component: px, py, pz, vx, vy, vz, mass, charge.
//   SoAVec4  two vec4 arrays: (pos, mass) and (vel, charge): 16-byte loads, no waste.
//
// step:   force = mass * gravity + charge * field - drag * vel
//         vel  += force * (dt / mass);  pos += vel * dt
// drift:  pos  += vel * dt              (reads 24 of AoS's 48 bytes)

#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"

namespace gpgpu::bench {

// The bytes a step needs are the same in every layout: 32 read (pos, mass, vel, charge) and
// 24 written (pos, vel); a drift reads 24 and writes 12.
inline constexpr std::size_t step_useful_bytes = 56, drift_useful_bytes = 36;

enum class ParticleLayout { AoS, SoA, SoAVec4 };
std::string to_string(ParticleLayout layout);

struct ParticleParams {
  float dt = 0.01f;
  std::array<float, 3> gravity = {0.0f, -9.81f, 0.0f};
  std::array<float, 3> field = {0.5f, 0.0f, -0.25f};
  float drag = 0.1f;
};

// The host copy, one vector per component (the layout the CPU reference works on).
struct Particles {
  std::vector<float> px, py, pz, vx, vy, vz, mass, charge;
  std::vector<float> color;  // 4 per particle; carried, never changed
  std::size_t size() const { return px.size(); }
};

// Positions in [-10, 10), velocities in [-1, 1), masses in [0.5, 2), charges in [-1, 1).
Particles random_particles(std::size_t n, std::mt19937& rng);
void cpu_step(Particles& p, const ParticleParams& params);
void cpu_drift(Particles& p, const ParticleParams& params);

// The particles on the device in one layout, with the two kernels compiled.
class DeviceParticles {
 public:
  DeviceParticles(const Context& context, ParticleLayout layout, const Particles& host,
                  int local_size = 256);
  void step(const ParticleParams& params);
  void drift(const ParticleParams& params);
  Particles download() const;
  // Bytes a particle occupies in the arrays the kernels bind (AoS 48, the others 32).
  std::size_t bytes_per_particle() const;

 private:
  Args args(const ParticleParams& params, bool with_forces) const;

  ParticleLayout layout_;
  std::size_t count_;
  std::vector<Buffer> buffers_;
  std::unique_ptr<ComputeKernel> step_, drift_;
};

}  // namespace gpgpu::bench
