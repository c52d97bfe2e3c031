// bench/particles.hpp — one particle step in three memory layouts (AoS, SoA, SoA of vec4), for
// the soa benchmark and its correctness test; the layouts, the step and the drift:
// docs/memory.md, "Structure of arrays vs array of structures".
#pragma once

#include <array>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"

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
  void step(const ParticleParams& params) { step_->run(args(params, true), count_); }
  void drift(const ParticleParams& params) { drift_->run(args(params, false), count_); }
  Particles download() const;
  // Bytes a particle occupies in the arrays the kernels bind (AoS 48, the others 32).
  std::size_t bytes_per_particle() const { return layout_ == ParticleLayout::AoS ? 48 : 32; }

 private:
  Args args(const ParticleParams& params, bool with_forces) const;

  ParticleLayout layout_;
  std::size_t count_;
  std::vector<Buffer> buffers_;
  std::unique_ptr<ComputeKernel> step_, drift_;
};

}  // namespace gpgpu::bench
