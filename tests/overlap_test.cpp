// The overlap pipeline (docs/data-path.md, "Overlap"): run temporaries copied by the transfer
// engine's copy lanes — contexts of their own on threads of their own — under a run_async
// pipeline with random chunk sizes: no chunk is read by its kernel before it is uploaded,
// none is overwritten before its result is read back (the pool hands a temporary out again
// only after the lanes' fences), a caller's input may be reused as soon as run_async returns,
// and host ranges of odd sizes at unaligned addresses go through the lanes intact. Every
// output element is checked against a float64 reference (inputs are halves below 1000, so the
// float32 arithmetic is exact and equality is the tolerance) and outputs are poisoned first.
// On llvmpipe the engine is forced onto persistently mapped staging with tiny chunks, so every
// run wraps the staging rings; llvmpipe runs commands in call order, so there these tests
// check the lanes' data path, and on a GPU (the tests stage of scripts/device/all-suite.sh,
// lanes on by default) they are the race test.
#include <gtest/gtest.h>

#include <deque>
#include <random>

#include "gl/context_state.hpp"
#include "gl/gl_fence.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "test_support.hpp"
#include "transfer/copy_lane.hpp"
#include "transfer/transfer_engine.hpp"

namespace gpgpu::test {
namespace {

constexpr const char* twice_plus = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
layout(std430, binding = 2) buffer Z { float z[]; };
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) { y[i] = 2.0 * x[i] + 1.0; z[i] += x[i]; }
})";

// The poison pattern, bit for bit (it may be a NaN, which compares unequal to itself).
bool is_poison(float v) {
  const float p = poison_float();
  return same_float_bits({&v, 1}, {&p, 1});
}

float value(std::mt19937& rng) {
  return static_cast<float>(static_cast<int>(rng() % 2001) - 1000) * 0.5f;
}

// Lanes on, staging chunks of 16 KiB in rings of 3 (a chunk of 70,001 floats crosses 18
// chunks), transfers above 1 KiB through the lanes. Null where the device has no mapped
// staging (no GL_EXT_buffer_storage): the lanes need it.
std::unique_ptr<Context> lane_options_context() {
  ContextOptions o;
  o.data_path.staging = StagingMode::PersistentMapped;
  o.data_path.copy_context = 1;
  o.data_path.chunk_bytes = 16 << 10;
  o.data_path.staging_chunks = 3;
  o.data_path.direct_upload_bytes = 1 << 10;
  o.data_path.host_threads = 2;
  Context probe;
  if (!probe.info().has_buffer_storage()) return nullptr;
  return std::make_unique<Context>(o);
}

// The same with the lanes started by a first run (they start with a check that the driver
// orders work across contexts by sync objects). Null, with `why`, where the device has no
// mapped staging or the lanes were refused: a measured limit of the driver
// (DataPathStats::copy_context_failure; docs/portability.md lists the drivers).
std::unique_ptr<Context> lane_context(std::string& why) {
  auto ctx = lane_options_context();
  if (!ctx) {
    why = "no persistently mapped staging on this device";
    return nullptr;
  }
  ComputeKernel k(*ctx, twice_plus);
  std::vector<float> x(4096, 1.0f), y(4096), z(4096, 0.0f);
  k.run({{"x", x}, {"y", Arg(std::span<float>(y)).with_access(Access::Write)}, {"z", z}});
  const auto s = ctx->data_path_stats();
  if (!s.copy_context) {
    why = "the copy lanes were refused: " + s.copy_context_failure;
    return nullptr;
  }
  return ctx;
}

// Where the platform cannot make a second context (WebGL2), lanes asked for are refused by
// name; auto and off resolve to off.
TEST(Overlap, LanesAreRefusedWithoutSharedContexts) {
  detail::PlatformTraits webgl;
  webgl.name = "WebGL2";
  webgl.shared_contexts = false;
  DataPathOptions o;
  o.copy_context = 1;
  try {
    detail::resolve_data_path(o, context().info(), webgl);
    FAIL() << "copy_context = 1 accepted without shared contexts";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("WebGL2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("copy_context"), std::string::npos) << e.what();
  }
  for (const int wanted : {0, -1}) {
    o.copy_context = wanted;
    EXPECT_EQ(detail::resolve_data_path(o, context().info(), webgl).copy_context, -1);
  }
}

// zink's fences order nothing across threads and contexts on any device (docs/portability.md):
// a GPU behind it (not a CPU device, so the probes' rule alone would allow them) gets neither
// copy lanes nor a delivery thread, whatever was asked; the same figures under another
// renderer keep both.
TEST(Overlap, ZinkKeepsEveryWaitOnTheContextsThread) {
  DeviceInfo info = context().info();
  info.is_software = false;
  info.extensions.push_back("GL_EXT_buffer_storage");
  detail::PlatformTraits platform;
  platform.shared_contexts = platform.threads = platform.thread_fences = true;
  platform.mapped_buffers = true;
  DataPathOptions o;
  o.staging = StagingMode::PersistentMapped;
  o.copy_context = 1;
  o.delivery_thread = 1;
  info.renderer = "NVIDIA H200/PCIe/SSE2";
  // `gpgpu info`'s line for it.
  const auto fence_line = [&] {
    const std::string report = info.to_string();
    const auto at = report.find("fences order other threads' work");
    return at == std::string::npos ? std::string() : report.substr(at, report.find('\n', at) - at);
  };
  const DataPathOptions gpu = detail::resolve_data_path(o, info, platform);
  EXPECT_EQ(gpu.copy_context, 1);
  EXPECT_EQ(gpu.delivery_thread, 1);
  EXPECT_TRUE(fence_line().ends_with(" yes")) << fence_line();
  info.renderer = "zink (NVIDIA H200)";
  const DataPathOptions zink = detail::resolve_data_path(o, info, platform);
  EXPECT_EQ(zink.copy_context, -1);
  EXPECT_EQ(zink.delivery_thread, -1);
  EXPECT_EQ(zink.staging, StagingMode::PersistentMapped);
  EXPECT_NE(fence_line().find("no: Mesa's zink"), std::string::npos) << fence_line();
}

TEST(Overlap, LanesAreOn) {
  std::string why;
  auto ctx = lane_context(why);
  if (!ctx) GTEST_SKIP() << why;
  const auto s = ctx->data_path_stats();
  EXPECT_TRUE(s.copy_context) << s.copy_context_failure;
  EXPECT_EQ(ctx->data_path().copy_context, 1);
}

TEST(Overlap, PipelineWithRandomChunksThroughCopyLanes) {
  std::string why;
  auto ctx = lane_context(why);
  if (!ctx) GTEST_SKIP() << why;
  ComputeKernel k(*ctx, twice_plus);
  std::mt19937 rng(seed());
  const std::size_t total = 1'000'003, largest = 70'001;
  std::vector<float> in(total), y(total, poison_float()), z(total), z0(total);
  for (auto& v : in) v = value(rng);
  for (auto& v : z0) v = value(rng);
  z = z0;
  for (const std::size_t depth : {std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
    SCOPED_TRACE(testing::Message() << "in flight " << depth << " seed=" << seed());
    std::fill(y.begin(), y.end(), poison_float());
    z = z0;
    // Each chunk's input is a copy the test overwrites as soon as run_async returns: the
    // engine must have taken it by then.
    std::vector<float> scratch(largest);
    std::deque<PendingRun> flight;
    std::size_t first = 0;
    while (first < total) {
      const std::size_t count = std::min<std::size_t>(1 + rng() % largest, total - first);
      if (flight.size() == depth) {
        flight.front().wait();
        flight.pop_front();
      }
      std::copy_n(in.begin() + static_cast<std::ptrdiff_t>(first), count, scratch.begin());
      const std::span<const float> x(scratch.data(), count);
      flight.push_back(k.run_async(
          {{"x", x},
           {"y", Arg(std::span<float>(y.data() + first, count)).with_access(Access::Write)},
           {"z", std::span<float>(z.data() + first, count)}}));
      std::fill_n(scratch.begin(), count, poison_float());
      first += count;
    }
    while (!flight.empty()) {
      flight.front().wait();
      flight.pop_front();
    }
    // float64 references; exact equality holds because every input is a multiple of 0.5
    // below 1000 in magnitude, so 2x + 1 and z + x are exact in float32 too.
    for (std::size_t i = 0; i < total; ++i) {
      ASSERT_EQ(static_cast<double>(y[i]), 2.0 * in[i] + 1.0) << i;
      ASSERT_EQ(static_cast<double>(z[i]), static_cast<double>(z0[i]) + in[i]) << i;
    }
  }
  EXPECT_GT(ctx->data_path_stats().lane_batches, 0u);
}

// Kernel arguments from host ranges that start 1 or 3 floats into a vector and have odd
// sizes, below and above the lane threshold and across many staging chunks; the floats
// around each output range stay as they were. Between runs, a Buffer written by the Context's
// own context is read by a run whose other arguments come through the lanes.
TEST(Overlap, UnalignedOddHostRangesThroughCopyLanes) {
  std::string why;
  auto ctx = lane_context(why);
  if (!ctx) GTEST_SKIP() << why;
  ComputeKernel k(*ctx, twice_plus);
  std::mt19937 rng(seed());
  for (std::size_t n : {std::size_t{1}, std::size_t{255}, std::size_t{257}, std::size_t{65537},
                        std::size_t{300'007}}) {
    for (std::size_t shift : {std::size_t{1}, std::size_t{3}}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " shift=" << shift << " seed=" << seed());
      std::vector<float> x(n + 4), y(n + 4, poison_float()), z(n + 4);
      for (auto& v : x) v = value(rng);
      for (auto& v : z) v = value(rng);
      const std::vector<float> z0 = z;
      const std::span<float> ys(y.data() + shift, n), zs(z.data() + shift, n);
      k.run({{"x", std::span<const float>(x.data() + shift, n)},
             {"y", Arg(ys).with_access(Access::Write)},
             {"z", zs}});
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(y[shift + i], 2.0f * x[shift + i] + 1.0f) << i;
        ASSERT_EQ(z[shift + i], z0[shift + i] + x[shift + i]) << i;
      }
      for (std::size_t i = 0; i < shift; ++i) {
        EXPECT_TRUE(is_poison(y[i])) << i;
        EXPECT_EQ(z[i], z0[i]) << i;
      }
      EXPECT_TRUE(is_poison(y[shift + n]));
      EXPECT_EQ(z[shift + n], z0[shift + n]);
      // x as a Buffer the Context's context uploads; z from the host through the lanes.
      Buffer xb = Buffer::from(*ctx, std::span<const float>(x.data() + shift, n));
      Buffer yb = Buffer::from(*ctx, std::vector<float>(n, poison_float()));
      k.run({{"x", xb}, {"y", yb}, {"z", zs}});
      const auto got = yb.to_vector<float>();
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[i], 2.0f * x[shift + i] + 1.0f) << i;
        ASSERT_EQ(z[shift + i], z0[shift + i] + 2.0f * x[shift + i]) << i;
      }
    }
  }
}

// A lane on its own: a copy past the end of its buffer is reported to the caller as a GL
// error (nothing is issued after it), the lane goes on to copy an unaligned, odd-sized range
// correctly, and its thread ends when the lane is destroyed (a hang here is a test timeout).
TEST(Overlap, LaneReportsAFailingCopyAndGoesOn) {
  auto ctx = lane_options_context();
  if (!ctx) GTEST_SKIP() << "no persistently mapped staging on this device";
  auto& state = *ctx->state();
  state.ensure_current();
  std::string why;
  auto lane = detail::CopyLane::start(state, why);
  ASSERT_TRUE(lane) << why;
  std::mt19937 rng(seed());
  const std::size_t n = 1001;
  std::vector<float> source(n);
  for (auto& v : source) v = value(rng);
  Buffer from = Buffer::from(*ctx, std::span<const float>(source));
  Buffer to = Buffer::from(*ctx, std::vector<float>(n, poison_float()));
  const detail::LaneCopy past_end{from.gl_name(), 4, to.gl_name(), 0, n * sizeof(float)};
  EXPECT_THROW(lane->issue(nullptr, {&past_end, 1}, false), gpgpu::GLError);
  // Floats 3 .. 3+499 of `from` to floats 7 .. 7+499 of `to`: byte offsets 12 and 28.
  const std::size_t first = 3, at = 7, count = 499;
  const detail::LaneCopy copy{from.gl_name(), first * sizeof(float), to.gl_name(),
                              at * sizeof(float), count * sizeof(float)};
  const detail::LaneFences f = lane->issue(nullptr, {&copy, 1}, true);
  ASSERT_NE(f.done, nullptr);
  detail::GlFence done = detail::GlFence::adopt(f.done);
  done.wait();  // in the Context's context: the sync object is the share group's
  ASSERT_TRUE(detail::wait_thread_fence(state, f.thread));
  detail::delete_thread_fence(state, f.thread);
  lane.reset();  // joins the lane's thread
  const auto got = to.to_vector<float>();
  for (std::size_t i = 0; i < n; ++i) {
    if (i >= at && i < at + count) {
      ASSERT_EQ(got[i], source[first + (i - at)]) << i;
    } else {
      ASSERT_TRUE(is_poison(got[i])) << i;
    }
  }
}

}  // namespace
}  // namespace gpgpu::test
