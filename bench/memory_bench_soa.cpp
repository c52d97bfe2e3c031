// soa: one particle update as array of structures and as structures of arrays.
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "gpgpu/work_group.hpp"
#include "memory_bench.hpp"
#include "particles.hpp"

namespace gpgpu::bench {

namespace {

// A step on the device must agree with the CPU before its time means anything.
void check_step(const Particles& device, const Particles& cpu, ParticleLayout layout) {
  for (std::size_t i = 0; i < cpu.size(); i += 61) {
    for (const auto& [d, c] : {std::pair{&device.px, &cpu.px}, std::pair{&device.vy, &cpu.vy}}) {
      if (std::abs((*d)[i] - (*c)[i]) > 1e-4f * (1.0f + std::abs((*c)[i]))) {
        throw Error(fmt::format("bench soa: {} differs from the CPU at particle {}: {} vs {}",
                                to_string(layout), i, (*d)[i], (*c)[i]));
      }
    }
  }
}

}  // namespace

void run_soa_bench(MemoryEnv& env) {
  auto& ctx = env.context;
  const std::size_t n = env.o.particles;
  env.log << fmt::format("soa: {} particles ...\n", n);
  std::mt19937 rng(12345);
  const Particles host = random_particles(n, rng);
  const ParticleParams params;
  Particles expected = host;
  cpu_step(expected, params);
  const int local = preferred_work_group_size(ctx);

  Table table("soa",
              fmt::format("particle update, {} particles, work group {}; GB/s of the bytes "
                          "the update needs (step 56, drift 36 a particle)",
                          n, local),
              {"kernel", "layout", "bytes/particle", "median ms", "GB/s", "vs AoS"});
  double aos_step = 0, aos_drift = 0;
  for (const auto layout : {ParticleLayout::AoS, ParticleLayout::SoA, ParticleLayout::SoAVec4}) {
    try {
      DeviceParticles check(ctx, layout, host, local);
      check.step(params);
      check_step(check.download(), expected, layout);
    } catch (const DeviceLimitError& e) {
      // A device (or profile) with fewer storage buffers than the layout binds: the table
      // says which limit, and the other layouts are still measured.
      table.add({"step and drift", to_string(layout), "-", "refused", e.limit(), "-"});
      continue;
    }
    DeviceParticles device(ctx, layout, host, local);
    const Timing step = env.profile([&] { device.step(params); });
    const Timing drift = env.profile([&] { device.drift(params); });
    const double step_g = gbps(static_cast<double>(n * step_useful_bytes), step.kernel_ms());
    const double drift_g = gbps(static_cast<double>(n * drift_useful_bytes), drift.kernel_ms());
    if (layout == ParticleLayout::AoS) {
      aos_step = step_g;
      aos_drift = drift_g;
    }
    table.add({"step (forces)", to_string(layout), device.bytes_per_particle(),
               Cell(step.kernel_ms(), 3), Cell(step_g), ratio(step_g, aos_step)});
    table.add({"drift (pos += vel dt)", to_string(layout), device.bytes_per_particle(),
               Cell(drift.kernel_ms(), 3), Cell(drift_g), ratio(drift_g, aos_drift)});
  }
  table.note(
      "AoS carries a vec4 colour the update never touches; it still shares the cache "
      "lines, so AoS moves more bytes for the same work");
  env.finish(table);
}

}  // namespace gpgpu::bench
