// Context: device information, device selection (options, index, GPGPU_DEVICE), release,
// and one Context per thread running kernels at the same time.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/gpgpu.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::test::eps32;

// Sets an environment variable for the lifetime of the guard and restores the previous
// value (or its absence) afterwards, also when the test fails half-way.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) previous_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (previous_) {
      ::setenv(name_.c_str(), previous_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> previous_;
};

// Mesa's software device (llvmpipe). The surfaceless platform does not count: on a machine
// with NVIDIA's EGL it gives the NVIDIA GPU.
bool has_software_device() {
  for (const auto& d : gpgpu::list_devices()) {
    if (d.kind == "software") return true;
  }
  return false;
}

// Mesa's software EGL device renders with llvmpipe unless GALLIUM_DRIVER picks another
// driver for it; zink then runs on the machine's Vulkan device, which is llvmpipe's
// (lavapipe, "zink (llvmpipe ...)") only with LIBGL_ALWAYS_SOFTWARE.
bool has_llvmpipe_device() {
  const char* gallium = std::getenv("GALLIUM_DRIVER");
  const bool other_driver = gallium != nullptr && std::string(gallium) != "llvmpipe" &&
                            std::getenv("LIBGL_ALWAYS_SOFTWARE") == nullptr;
  return has_software_device() && !other_driver;
}

constexpr const char* kScaleAddSource = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Y { float y[]; };
layout(std430, binding = 2) writeonly buffer Z { float z[]; };
uniform float alpha;
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) z[i] = alpha * x[i] + y[i];
})";

// z = alpha * x + y in float32: two roundings (product, sum); with fma contraction the
// product is exact and only one remains. Either way |err| <= 2 * eps32 * (|alpha x| + |y|).
void expect_scale_add(float alpha, const std::vector<float>& x, const std::vector<float>& y,
                      const std::vector<float>& z, const std::string& who) {
  ASSERT_EQ(z.size(), x.size()) << who;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double ax = static_cast<double>(alpha) * x[i];
    const double expected = ax + y[i];
    const double bound = 2 * eps32 * (std::abs(ax) + std::abs(static_cast<double>(y[i])));
    ASSERT_LE(std::abs(z[i] - expected), bound) << who << " element " << i << " got " << z[i];
  }
}

TEST(Context, InfoFieldsAreSane) {
  const auto& info = gpgpu::test::context().info();
  EXPECT_FALSE(info.renderer.empty());
  EXPECT_FALSE(info.vendor.empty());
  EXPECT_FALSE(info.version.empty());
  EXPECT_FALSE(info.glsl_version.empty());
  EXPECT_TRUE(info.gl_major > 3 || (info.gl_major == 3 && info.gl_minor >= 1))
      << "GLES " << info.gl_major << "." << info.gl_minor;
  EXPECT_GE(info.device_index, 0);
  EXPECT_FALSE(info.device_kind.empty());
  // OpenGL ES 3.1 guarantees these minimums (table 20.x of the spec); a zero would mean the
  // query failed.
  EXPECT_GE(info.max_shader_storage_block_size, std::int64_t{1} << 27);
  EXPECT_GE(info.max_shader_storage_buffer_bindings, 4);
  for (int d = 0; d < 3; ++d) {
    EXPECT_GE(info.max_compute_work_group_count[d], 65535) << "dimension " << d;
    EXPECT_GT(info.max_compute_work_group_size[d], 0) << "dimension " << d;
  }
  EXPECT_GE(info.max_compute_work_group_invocations, 128);
  EXPECT_GE(info.max_compute_shared_memory_size, 16384);
  EXPECT_GT(info.max_texture_size, 0);
  EXPECT_GT(info.max_uniform_block_size, 0);
  // Every OpenGL ES driver has extensions; a device-limit profile may hide them all.
  if (info.limit_profile.empty()) {
    EXPECT_FALSE(info.extensions.empty());
  }
  EXPECT_GE(info.max_compute_shader_storage_blocks, 4);
  EXPECT_GE(info.max_combined_shader_storage_blocks, 4);
  const std::string report = info.to_string();
  EXPECT_NE(report.find(info.renderer), std::string::npos);
}

// Two programs (their sources differ by a define) that count to their uniform, run in the
// order that exposed zink 22.3's reuse of a pipeline built for earlier uniform values on a
// CPU device (docs/portability.md): every count must be the one asked for, on every driver,
// and the Context's own check must agree.
TEST(Context, EveryDispatchSeesItsUniformValues) {
  auto& ctx = gpgpu::test::context();
  EXPECT_TRUE(ctx.info().uniforms_reach_every_dispatch) << ctx.info().renderer;
  constexpr const char* count_to_trips = R"(
    layout(local_size_x = 1) in;
    layout(std430, binding = 0) buffer Count { uint count[]; };
    uniform uint trips;
    void main() {
      uint n = 0u;
      for (uint t = 0u; t < trips; ++t) n += 1u;
      count[0] = n;
    })";
  gpgpu::ComputeKernel a(ctx, count_to_trips, {{"VARIANT", "1"}});
  gpgpu::ComputeKernel b(ctx, count_to_trips, {{"VARIANT", "2"}});
  const std::pair<gpgpu::ComputeKernel*, std::uint32_t> runs[] = {
      {&a, 1}, {&b, 1}, {&a, 1}, {&b, 1}, {&a, 5}, {&b, 5}, {&a, 5}, {&b, 7}, {&a, 5}};
  for (const auto& [kernel, trips] : runs) {
    std::vector<std::uint32_t> count(1, gpgpu::test::poison_uint);
    kernel->run({{"count", gpgpu::out(count)}, {"trips", trips}});
    EXPECT_EQ(count[0], trips) << (kernel == &a ? "a" : "b");
  }
}

TEST(Context, ListDevicesIsNonEmptyAndIndexed) {
  const auto devices = gpgpu::list_devices();
  ASSERT_FALSE(devices.empty());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i].index, static_cast<int>(i));
    EXPECT_TRUE(devices[i].kind == "gpu" || devices[i].kind == "software" ||
                devices[i].kind == "surfaceless")
        << devices[i].kind;
  }
}

TEST(Context, SelectsLlvmpipeByName) {
  if (!has_llvmpipe_device()) GTEST_SKIP() << "no llvmpipe device on this machine";
  gpgpu::Context ctx({.device = "llvmpipe"});
  EXPECT_NE(ctx.info().renderer.find("llvmpipe"), std::string::npos) << ctx.info().renderer;
  EXPECT_TRUE(ctx.info().is_software);
}

TEST(Context, SelectsByIndex) {
  gpgpu::Context ctx({.device = "0"});
  EXPECT_EQ(ctx.info().device_index, 0);
  EXPECT_EQ(ctx.info().device_kind, gpgpu::list_devices().at(0).kind);
}

TEST(Context, UnknownDeviceNameThrowsListingRenderers) {
  try {
    gpgpu::Context ctx({.device = "nonexistent-gpu"});
    FAIL() << "a device matching 'nonexistent-gpu' was found: " << ctx.info().renderer;
  } catch (const gpgpu::ContextError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("nonexistent-gpu"), std::string::npos) << message;
    // The renderers it did find are listed, so the user can pick a word that matches.
    EXPECT_NE(message.find(gpgpu::test::context().info().renderer), std::string::npos) << message;
  }
}

TEST(Context, OutOfRangeIndexThrows) {
  const std::string index = std::to_string(gpgpu::list_devices().size());
  try {
    gpgpu::Context ctx({.device = index});
    FAIL() << "device index " << index << " was accepted";
  } catch (const gpgpu::ContextError& e) {
    EXPECT_NE(std::string(e.what()).find(index), std::string::npos) << e.what();
  }
}

TEST(Context, RespectsGpgpuDeviceEnvironmentVariable) {
  {
    ScopedEnv env("GPGPU_DEVICE", "nonexistent-gpu");
    EXPECT_THROW(gpgpu::Context(), gpgpu::ContextError);
    // An explicit device wins over the environment.
    EXPECT_NO_THROW(gpgpu::Context({.device = "0"}));
  }
  if (has_llvmpipe_device()) {
    ScopedEnv env("GPGPU_DEVICE", "llvmpipe");
    gpgpu::Context ctx;
    EXPECT_NE(ctx.info().renderer.find("llvmpipe"), std::string::npos) << ctx.info().renderer;
  }
}

TEST(Context, UseAfterReleaseThrows) {
  gpgpu::Context ctx;
  gpgpu::ComputeKernel kernel(ctx, kScaleAddSource);
  const auto x = gpgpu::test::random_floats(100);
  auto buffer = gpgpu::Buffer::from(ctx, x);
  ctx.release();
  EXPECT_TRUE(ctx.released());

  std::vector<float> z(x.size(), gpgpu::test::poison_float());
  const std::vector<float> z_before = z;
  EXPECT_THROW(kernel.run({{"x", x}, {"y", x}, {"z", gpgpu::out(z)}, {"alpha", 2.0f}}),
               gpgpu::Error);
  EXPECT_EQ(0, std::memcmp(z.data(), z_before.data(), z.size() * sizeof(float)));
  EXPECT_THROW(buffer.upload(x), gpgpu::Error);
  EXPECT_THROW((void)buffer.to_vector<float>(), gpgpu::Error);
  EXPECT_THROW(ctx.finish(), gpgpu::Error);
  EXPECT_THROW(ctx.flush(), gpgpu::Error);
  EXPECT_THROW(gpgpu::ComputeKernel(ctx, kScaleAddSource), gpgpu::Error);
  EXPECT_THROW(gpgpu::Buffer(ctx, gpgpu::ElementType::Float32, 4), gpgpu::Error);
  ctx.release();  // idempotent
}

// GL program names are numbered per context, so two fresh contexts give their first
// programs the same number. A kernel that outlives its context's cache (here through
// release()) must not delete that number in whichever context is current when it dies.
TEST(Context, KernelOutlivingItsContextLeavesOtherContextsAlone) {
  gpgpu::Context first, second;
  auto first_kernel = std::make_unique<gpgpu::ComputeKernel>(first, kScaleAddSource);
  gpgpu::ComputeKernel second_kernel(second, kScaleAddSource);
  // A second program in `second`, run last, so second_kernel's program is not in use (GL
  // defers deleting a program that is in use, which would hide the bug).
  gpgpu::ComputeKernel other_kernel(second, std::string(kScaleAddSource) + "// other\n");
  const auto x = gpgpu::test::random_floats(1000);
  const auto y = gpgpu::test::random_floats(1000);
  std::vector<float> z(x.size(), gpgpu::test::poison_float());
  other_kernel.run({{"x", x}, {"y", y}, {"z", gpgpu::out(z)}, {"alpha", 1.5f}});
  first.release();
  other_kernel.run({{"x", x}, {"y", y}, {"z", gpgpu::out(z)}, {"alpha", 1.5f}});  // second current
  first_kernel.reset();
  std::fill(z.begin(), z.end(), gpgpu::test::poison_float());
  second_kernel.run({{"x", x}, {"y", y}, {"z", gpgpu::out(z)}, {"alpha", 0.75f}});
  expect_scale_add(0.75f, x, y, z, "second_kernel");
}

TEST(Context, OneContextPerThreadRunsConcurrently) {
  constexpr int kThreads = 4;
  constexpr std::size_t kCount = 50000;
  // Inputs are drawn here: the test generator is not thread-safe.
  struct Work {
    float alpha = 0;
    std::vector<float> x, y, z;
    std::string error;
  };
  std::vector<Work> work(kThreads);
  for (auto& w : work) {
    w.alpha = gpgpu::test::random_floats(1, 0.5f, 2.0f)[0];
    w.x = gpgpu::test::random_floats(kCount);
    w.y = gpgpu::test::random_floats(kCount);
    w.z.assign(kCount, gpgpu::test::poison_float());
  }
  // Every thread makes its context and kernel, then all start running together.
  std::latch ready(kThreads);
  std::vector<std::thread> threads;
  for (auto& w : work) {
    threads.emplace_back([&w, &ready] {
      bool arrived = false;
      try {
        gpgpu::Context ctx;
        gpgpu::ComputeKernel kernel(ctx, kScaleAddSource);
        ready.arrive_and_wait();
        arrived = true;
        // Several runs each, so the threads' dispatches overlap in time.
        for (int round = 0; round < 5; ++round) {
          std::fill(w.z.begin(), w.z.end(), gpgpu::test::poison_float());
          kernel.run({{"x", w.x}, {"y", w.y}, {"z", gpgpu::out(w.z)}, {"alpha", w.alpha}});
        }
      } catch (const std::exception& e) {
        w.error = e.what();
        if (!arrived) ready.count_down();  // never leave the others waiting
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    const auto& w = work[static_cast<std::size_t>(t)];
    ASSERT_TRUE(w.error.empty()) << "thread " << t << ": " << w.error;
    expect_scale_add(w.alpha, w.x, w.y, w.z, "thread " + std::to_string(t));
  }
}

}  // namespace
