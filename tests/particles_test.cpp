// The soa benchmark's particle kernels: every layout computes what the CPU computes, on fresh
// random particles, every particle checked; fields the step must not touch stay bit-exact.
// Also a smoke run of the memory benchmark runner and its JSON/CSV output.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpgpu/error.hpp"
#include "memory_runner.hpp"
#include "particles.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::bench::ParticleLayout;
using gpgpu::test::context;

// Each output is a few float operations from its inputs (magnitudes up to ~10): allow a few
// units of roundoff of the largest term, plus FMA contraction on either side.
void expect_close(const std::vector<float>& gpu, const std::vector<float>& cpu, const char* what) {
  ASSERT_EQ(gpu.size(), cpu.size()) << what;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    const double tolerance = 16 * gpgpu::test::eps32 * (std::abs(cpu[i]) + 10.0);
    if (!(std::abs(double{gpu[i]} - cpu[i]) <= tolerance) && ++bad <= 5) {
      ADD_FAILURE() << what << "[" << i << "] = " << gpu[i] << ", CPU " << cpu[i];
    }
  }
  EXPECT_EQ(bad, 0u) << what;
}

class ParticleLayouts : public ::testing::TestWithParam<ParticleLayout> {};

TEST_P(ParticleLayouts, StepAndDriftMatchTheCpu) {
  const std::size_t n = 1237;  // not a multiple of the work group
  const auto host = gpgpu::bench::random_particles(n, gpgpu::test::rng());
  const gpgpu::bench::ParticleParams params;
  if (GetParam() == ParticleLayout::SoA && context().info().max_compute_shader_storage_blocks < 8) {
    // Eight float arrays are eight storage buffers: a device with fewer (OpenGL ES 3.1
    // guarantees 4) refuses the kernel by the limit's name.
    const std::string message = gpgpu::test::error_message_of([&] {
      gpgpu::bench::DeviceParticles device(context(), GetParam(), host, 64);
      device.step(params);
    });
    EXPECT_NE(message.find("GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS"), std::string::npos) << message;
    return;
  }
  gpgpu::bench::DeviceParticles device(context(), GetParam(), host, 64);
  auto expected = host;
  device.step(params);
  gpgpu::bench::cpu_step(expected, params);
  device.drift(params);
  gpgpu::bench::cpu_drift(expected, params);
  const auto got = device.download();
  expect_close(got.px, expected.px, "px");
  expect_close(got.py, expected.py, "py");
  expect_close(got.pz, expected.pz, "pz");
  expect_close(got.vx, expected.vx, "vx");
  expect_close(got.vy, expected.vy, "vy");
  expect_close(got.vz, expected.vz, "vz");
  EXPECT_EQ(got.mass, host.mass);
  EXPECT_EQ(got.charge, host.charge);
  if (GetParam() == ParticleLayout::AoS) {
    EXPECT_EQ(got.color, host.color);
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, ParticleLayouts,
                         ::testing::Values(ParticleLayout::AoS, ParticleLayout::SoA,
                                           ParticleLayout::SoAVec4),
                         [](const auto& param_info) {
                           switch (param_info.param) {
                             case ParticleLayout::AoS:
                               return std::string("AoS");
                             case ParticleLayout::SoA:
                               return std::string("SoA");
                             case ParticleLayout::SoAVec4:
                               return std::string("SoAVec4");
                           }
                           return std::string("unknown");
                         });

TEST(MemoryBenchRunner, SmokeRunWritesTables) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gpgpu_memory_bench_" + std::to_string(gpgpu::test::seed()));
  std::ostringstream log;
  gpgpu::bench::MemoryBenchOptions options;
  options.which = "soa";
  options.quick = true;
  options.warmup = 0;
  options.repeats = 1;
  options.particles = 4096;
  options.out_dir = dir;
  options.log = &log;
  EXPECT_EQ(gpgpu::bench::run_memory_bench(options, context()), 0);
  EXPECT_NE(log.str().find("SoA of vec4"), std::string::npos) << log.str();
  std::ifstream json_file(dir / "memory-soa.json");
  const auto doc = nlohmann::json::parse(json_file);
  EXPECT_EQ(doc["name"], "soa");
  EXPECT_EQ(doc["device"], context().info().renderer);
  // Two rows per layout; SoA binds 8 storage buffers, and a device with fewer (es31-minimum:
  // 4) gets one row saying which limit refused it.
  const bool soa_fits = context().info().max_compute_shader_storage_blocks >= 8;
  ASSERT_EQ(doc["rows"].size(), soa_fits ? 6u : 5u);
  if (!soa_fits) {
    EXPECT_EQ(doc["rows"][2]["median ms"], "refused");
    EXPECT_EQ(doc["rows"][2]["GB/s"], "GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS");
  }
  EXPECT_GT(doc["rows"][0]["GB/s"].get<double>(), 0.0);
  std::ifstream csv(dir / "memory-soa.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "kernel,layout,bytes/particle,median ms,GB/s,vs AoS");
  std::filesystem::remove_all(dir);

  options.which = "everything";
  EXPECT_THROW(gpgpu::bench::run_memory_bench(options, context()), gpgpu::ArgumentError);
  options.which = "soa";
  options.repeats = 0;
  EXPECT_THROW(gpgpu::bench::run_memory_bench(options, context()), gpgpu::ArgumentError);
}

// The bandwidth kernels at a size whose invocations do not fill their last work group
// (4100 floats: 1025 vec4s, 129 invocations of 8 vec4s): each variant's own check (every 97th
// element of a fresh run against alpha x + y) must pass, so no invocation past the count
// repeats another's elements. A size that is not a multiple of 4 is refused by name.
TEST(MemoryBenchRunner, BandwidthKernelsCoverEveryElementOnce) {
  std::ostringstream log;
  gpgpu::bench::MemoryBenchOptions options;
  options.which = "bandwidth";
  options.warmup = 0;
  options.repeats = 1;
  options.bandwidth_floats = 4100;
  options.log = &log;
  EXPECT_EQ(gpgpu::bench::run_memory_bench(options, context()), 0) << log.str();
  options.bandwidth_floats = 4101;
  try {
    gpgpu::bench::run_memory_bench(options, context());
    ADD_FAILURE() << "4101 floats were accepted";
  } catch (const gpgpu::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("--floats 4101 is not a multiple of 4"), std::string::npos)
        << e.what();
  }
}

}  // namespace
