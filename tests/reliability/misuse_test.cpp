// The library as a careless or hostile user drives it: threads, work sizes past the arrays,
// device limits, bad defines, runaway kernels. Every case must end in a specific
// gpgpu::Error (never a crash, a hang or a silently wrong result) with the caller's data
// unchanged.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "gpgpu/gpgpu.hpp"
#include "gpgpu/npy.hpp"
#include "test_support.hpp"

namespace {

namespace test = gpgpu::test;

using gpgpu::test::error_message_of;

constexpr const char* add_one_source = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer X { float x[]; };
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) x[i] += 1.0; })";

// Runs add_one `runs` times over fresh data and checks every element (x + 1 is exact for
// x in [1, 2)).
bool add_one_works(const gpgpu::Context& ctx, int runs) {
  gpgpu::ComputeKernel add_one(ctx, add_one_source);
  for (int r = 0; r < runs; ++r) {
    const auto x0 = test::random_floats(100, 1.0f, 2.0f);
    auto x = x0;
    add_one.run({{"x", x}});
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i] != x0[i] + 1.0f) return false;
    }
  }
  return true;
}

// "One thread at a time": a Context made on a thread that has ended, and one handed over
// with make_not_current(), serve another thread; two threads at once get a clear error.
TEST(Threads, AContextServesOneThreadAtATime) {
  std::unique_ptr<gpgpu::Context> made_elsewhere;
  std::thread maker([&] {
    made_elsewhere = std::make_unique<gpgpu::Context>();
    EXPECT_TRUE(add_one_works(*made_elsewhere, 1));
  });  // the thread ends with the context current: its end releases it
  maker.join();
  EXPECT_TRUE(add_one_works(*made_elsewhere, 200));

  // Handed over explicitly: the main thread lets go, a worker takes it, then it comes back.
  made_elsewhere->make_not_current();
  bool worker_ok = false;
  std::thread worker([&] {
    worker_ok = add_one_works(*made_elsewhere, 200);
    made_elsewhere->make_not_current();
  });
  worker.join();
  EXPECT_TRUE(worker_ok);
  EXPECT_TRUE(add_one_works(*made_elsewhere, 1));

  // Not released: another thread's call is refused with what to do, and nothing breaks.
  std::string refused;
  std::thread intruder(
      [&] { refused = error_message_of([&] { (void)add_one_works(*made_elsewhere, 1); }); });
  intruder.join();
  EXPECT_NE(refused.find("current on another thread"), std::string::npos) << refused;
  EXPECT_NE(refused.find("make_not_current()"), std::string::npos) << refused;
  EXPECT_TRUE(add_one_works(*made_elsewhere, 1));
  made_elsewhere.reset();
}

// The rule for explicit item counts (compute_kernel.hpp): gpgpu runs what is asked and the
// kernel bounds its accesses; where it does not, robust buffer access makes the overrun
// harmless. Counts gpgpu_count cannot hold are refused before they wrap around.
TEST(WorkSize, ItemsPastTheArraysAreTheKernelsToBound) {
  auto& ctx = test::context();
  gpgpu::ComputeKernel bounded(ctx, R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) buffer X { float x[]; };
    void main() { uint i = gpgpu_index(); if (i < uint(x.length())) x[i] += 1.0; })");
  const auto x0 = test::random_floats(1000, 1.0f, 2.0f);
  auto x = x0;
  bounded.run({{"x", x}}, 5000);
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], x0[i] + 1.0f) << i;

  gpgpu::ComputeKernel add_one(ctx, add_one_source);
  EXPECT_NE(error_message_of([&] {
              add_one.run({{"x", x}}, std::numeric_limits<std::size_t>::max());
            }).find("exceed 2^32 - 1"),
            std::string::npos);
  EXPECT_NE(error_message_of([&] {
              add_one.run({{"x", x}}, gpgpu::Size3{1u << 20, 1u << 20, 1});
            }).find("exceed 2^32 - 1"),
            std::string::npos);
  EXPECT_EQ(x.size(), x0.size());

  // Unbounded (gpgpu_count only) and 1000 times too many items: with robust buffer access
  // the writes past the end are dropped and the array's own elements are right.
  gpgpu::Context robust({.robust_buffer_access = true});
  if (!robust.info().robust_buffer_access) GTEST_SKIP() << "robust buffer access not granted";
  gpgpu::ComputeKernel unbounded(robust, add_one_source);
  auto y = x0;
  unbounded.run({{"x", y}}, 1000000);
  for (std::size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], x0[i] + 1.0f) << i;
}

TEST(DeviceLimits, DispatchesTexturesAndBuffersPastTheLimitsAreRefused) {
  auto& ctx = test::context();
  const auto& info = ctx.info();
  gpgpu::ComputeKernel add_one(ctx, add_one_source);
  auto b = gpgpu::Buffer::from(ctx, test::random_floats(64, 1.0f, 2.0f));
  const auto too_many = static_cast<std::size_t>(info.max_compute_work_group_count[0]) + 1;
  const std::string dispatch = error_message_of([&] {
    add_one.run_groups({{"x", b}}, {too_many, 1, 1});
  });
  EXPECT_NE(dispatch.find("work groups exceed the device's"), std::string::npos) << dispatch;

  const auto wide = static_cast<std::size_t>(info.max_texture_size) + 1;
  EXPECT_THROW(gpgpu::Texture(ctx, gpgpu::TexelType::Float, {1, wide}), gpgpu::LimitError);
  const auto deep = static_cast<std::size_t>(info.max_3d_texture_size) + 1;
  EXPECT_THROW(gpgpu::Texture(ctx, gpgpu::TexelType::Float, {deep, 1, 1}), gpgpu::LimitError);
  EXPECT_THROW(
      gpgpu::Buffer(ctx, gpgpu::ElementType::Float32, std::numeric_limits<std::size_t>::max() / 2),
      gpgpu::LimitError);
  // A matrix past what one storage block binds (rows x side floats; more than one row
  // where a block holds more floats than an int side can reach, as zink's 4 GiB).
  const std::int64_t block_floats = info.max_shader_storage_block_size / 4;
  const int side = static_cast<int>(
      std::min<std::int64_t>(std::numeric_limits<int>::max() / 2, block_floats + 1));
  const int rows = static_cast<int>(block_floats / side + 1);
  EXPECT_THROW(gpgpu::MatmulPlan(ctx, rows, side, 1), gpgpu::LimitError);
}

TEST(Defines, BadDefinesAreNamedNotReportedOnAUserLine) {
  auto& ctx = test::context();
  const std::string digit = error_message_of([&] {
    gpgpu::ComputeKernel(ctx, add_one_source, {{"1BAD", "2"}});
  });
  EXPECT_NE(digit.find("define '1BAD' is not a valid macro name"), std::string::npos) << digit;
  EXPECT_EQ(digit.find("line 2"), std::string::npos) << digit;
  EXPECT_THROW(gpgpu::ComputeKernel(ctx, add_one_source, {{"GL_FOO", "1"}}), gpgpu::ArgumentError);
  EXPECT_THROW(gpgpu::ComputeKernel(ctx, add_one_source, {{"A__B", "1"}}), gpgpu::ArgumentError);
  EXPECT_THROW(gpgpu::ComputeKernel(ctx, add_one_source, {{"N", "1\n#error"}}),
               gpgpu::ArgumentError);
  EXPECT_THROW(gpgpu::ComputeKernel(ctx, add_one_source, {{"", "1"}}), gpgpu::ArgumentError);
  gpgpu::ComputeKernel fine(ctx, add_one_source, {{"GOOD_1", "2"}, {"_X", ""}});
}

// Every invocation spins: on llvmpipe through its whole loop budget (2^18 invocations take
// seconds even in a Release build on an idle machine; 2^14 took 0.2 s), on a GPU 2^28
// dependent steps (most of a second). The Contexts allow 250 ms, far
// more than the small checks around need even on a loaded machine.
constexpr const char* spin_source = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer X { float x[]; };
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  float v = x[i];
  for (uint t = 0u; t < 268435456u; ++t) v = v * 0.999 + 0.001;
  x[i] = v;
})";

TEST(Timeout, ARunPastTheTimeoutThrowsAndLeavesTheArraysAlone) {
  gpgpu::Context ctx({.timeout = std::chrono::milliseconds(250)});
  gpgpu::ComputeKernel spin(ctx, spin_source);
  auto x = test::random_floats(std::size_t{1} << 18, 1.0f, 2.0f);
  const auto x0 = x;
  const auto started = std::chrono::steady_clock::now();
  std::string message;
  try {
    spin.run({{"x", x}});
    ADD_FAILURE() << "the run did not time out";
  } catch (const gpgpu::TimeoutError& e) {
    message = e.what();
    EXPECT_NE(message.find("timeout of 250.0 ms"), std::string::npos) << message;
  }
  EXPECT_EQ(x, x0);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::minutes(1));
  // Two outcomes, told apart by what the driver did, not by which driver it is: llvmpipe runs
  // a compute dispatch inside the call, so the work is over (late) when the timeout is found
  // and the Context goes on working; a driver that queues it (a GPU; zink over lavapipe) is
  // still running it at the deadline, and the Context is abandoned.
  if (message.find("stays usable") != std::string::npos) {
    EXPECT_TRUE(add_one_works(ctx, 3));
  } else {
    EXPECT_NE(message.find("was abandoned"), std::string::npos) << message;
    EXPECT_THROW(add_one_works(ctx, 1), gpgpu::ContextLostError);
  }
}

// A fragment kernel's draw runs asynchronously on llvmpipe too: the wait gives up at the
// deadline, the Context is abandoned, and every later call says so.
// On a GPU a fragment shader invocation is not preempted while it runs, so one that spins
// for seconds holds the graphics engine against every other process; the NVIDIA driver then
// resets the engine and every GL context on the GPU is lost (this test did that to the tests
// ctest ran beside it on the H100). There each fragment spins for milliseconds (2^22 steps)
// and the draw is long only through their number: about a second of work on the H100's
// graphics multiprocessors, abandoned after 100 ms. A device with a loop cap (llvmpipe and
// zink over lavapipe stop every loop at 65535 steps, as measured when the Context is made)
// needs only a larger count.
TEST(Timeout, AnAbandonedContextSaysItIsLost) {
  const bool capped = test::context().info().max_loop_iterations > 0;
  const std::int32_t steps = capped ? 268435456 : 4194304;
  gpgpu::Context ctx({.timeout = std::chrono::milliseconds(capped ? 250 : 100)});
  gpgpu::FragmentKernel spin(ctx, R"(
    uniform int steps;
    out float R;
    void main() {
      float v = float(gpgpu_index());
      for (int t = 0; t < steps; ++t) v = v * 0.999 + 0.001;
      R = v;
    })");
  std::vector<float> r(256 * 256, -7.25f);  // 65536 fragments of 65535 steps on llvmpipe
  std::string first;
  try {
    spin.run({{"R", r}, {"steps", steps}}, 256, 256);
  } catch (const gpgpu::TimeoutError& e) {
    first = e.what();
  }
  ASSERT_FALSE(first.empty()) << "the run did not time out";
  EXPECT_EQ(r, std::vector<float>(256 * 256, -7.25f));
  if (first.find("stays usable") != std::string::npos) {
    GTEST_SKIP() << "this driver finished the draw inside the call: " << first;
  }
  EXPECT_NE(first.find("was abandoned"), std::string::npos) << first;
  const std::string later = error_message_of([&] { (void)add_one_works(ctx, 1); });
  EXPECT_NE(later.find("make a new gpgpu::Context"), std::string::npos) << later;
  EXPECT_THROW(add_one_works(ctx, 1), gpgpu::ContextLostError);
}

// A full disk while writing replaced an existing .npy by a truncated, unloadable one. The
// disk is made "full" with RLIMIT_FSIZE (a write past it fails with EFBIG, also for root):
// the save fails, the previous file is intact and no temporary is left behind.
TEST(Files, NpySaveNeverLeavesATruncatedFile) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("gpgpu_npy_full_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "result.npy";
  const auto small = test::random_floats(16);
  gpgpu::npy::save(path, gpgpu::npy::make<float>({16}, small));
  const auto before = std::filesystem::file_size(path);

  const auto big = test::random_floats(1 << 20);  // 4 MB, past the limit below
  std::string error;
  {
    rlimit saved{};
    getrlimit(RLIMIT_FSIZE, &saved);
    const auto previous_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit full = saved;
    full.rlim_cur = 64 * 1024;
    setrlimit(RLIMIT_FSIZE, &full);
    error =
        error_message_of([&] { gpgpu::npy::save(path, gpgpu::npy::make<float>({1 << 20}, big)); });
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previous_handler);
  }
  EXPECT_NE(error.find("cannot write"), std::string::npos) << error;
  EXPECT_EQ(std::filesystem::file_size(path), before);
  const auto kept = gpgpu::npy::load(path);
  ASSERT_EQ(kept.element_count(), small.size());
  for (std::size_t i = 0; i < small.size(); ++i) EXPECT_EQ(kept.view<float>()[i], small[i]);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u) << "a temporary file was left behind";
  std::filesystem::remove_all(dir);
}

TEST(Debug, DebugContextsWork) {
  gpgpu::Context ctx({.debug = true});
  EXPECT_TRUE(add_one_works(ctx, 2));
}

}  // namespace
