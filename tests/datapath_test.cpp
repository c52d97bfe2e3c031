// The data path: every kernel path gives the same results from host arrays, device objects
// and async runs, in every staging mode; transfers of odd sizes, across chunk boundaries, of
// zero length and at misaligned offsets; async handles in any order, unwaited, and after their
// Context is released; the device-buffer pool does not grow over many runs.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/gpgpu.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::Args;
using gpgpu::DataPathOptions;
using gpgpu::StagingMode;
namespace test = gpgpu::test;

// The engine configurations every result must survive: each staging mode, tiny chunks (so a
// few thousand floats cross several chunk boundaries and wrap a 2-chunk ring), the delivery
// thread on and off, several host threads, and no direct uploads at all. Persistently mapped
// staging needs GL_EXT_buffer_storage: without it (OpenGL ES 3.1's minimum) its refusal is
// BadOptionsAreRefusedAndChangeNothing's to check.
std::vector<std::pair<std::string, DataPathOptions>> configurations() {
  std::vector<std::pair<std::string, DataPathOptions>> list;
  list.emplace_back("defaults", DataPathOptions{});
  const bool persistent = test::context().info().has_buffer_storage();
  for (StagingMode mode :
       {StagingMode::PersistentMapped, StagingMode::Mapped, StagingMode::Direct}) {
    if (mode == StagingMode::PersistentMapped && !persistent) continue;
    DataPathOptions o;
    o.staging = mode;
    o.chunk_bytes = 4096;
    o.staging_chunks = 2;
    o.direct_upload_bytes = 1;
    list.emplace_back(std::string(gpgpu::to_string(mode)) + ", 4 KiB chunks x 2", o);
  }
  DataPathOptions threads;
  threads.staging = persistent ? StagingMode::PersistentMapped : StagingMode::Mapped;
  threads.chunk_bytes = 8192;
  threads.staging_chunks = 3;
  threads.host_threads = 3;
  threads.direct_upload_bytes = 1;
  const std::string staging(gpgpu::to_string(threads.staging));
  list.emplace_back(staging + ", 3 host threads, 8 KiB chunks x 3", threads);
  DataPathOptions caller = threads;
  caller.delivery_thread = -1;
  list.emplace_back(staging + ", delivered by the caller", caller);
  DataPathOptions lanes = threads;
  lanes.copy_context = 1;
  list.emplace_back(staging + ", copy lanes, 8 KiB chunks x 3", lanes);
  return list;
}

// Puts the shared context back to its defaults when a test ends, whatever happened.
struct RestoreDataPath {
  ~RestoreDataPath() { test::context().set_data_path({}); }
};

using gpgpu::test::same_float_bits;

constexpr const char* compute_source = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Z { float z[]; };
layout(std430, binding = 2) writeonly buffer W { float w[]; };
uniform float a;
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) w[i] = a * x[i] + z[i]; })";

// w = a x + z: one product and one sum, each rounded: |err| <= eps (|a x| + |a x + z|) + eps |a x|.
void expect_axpz(const std::vector<float>& x, const std::vector<float>& z, float a,
                 const std::vector<float>& w) {
  ASSERT_EQ(w.size(), x.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double exact = static_cast<double>(a) * x[i] + z[i];
    const double bound =
        2 * test::eps32 * (std::abs(static_cast<double>(a) * x[i]) + std::abs(exact));
    ASSERT_NEAR(w[i], exact, bound) << "element " << i;
  }
}

TEST(DataPath, ComputeHostBufferAndAsyncRunsAgreeInEveryMode) {
  RestoreDataPath restore;
  auto& ctx = test::context();
  const std::size_t n = 5000;  // 20000 bytes: five 4 KiB chunks, the last one partial
  for (const auto& [name, options] : configurations()) {
    SCOPED_TRACE(name);
    ctx.set_data_path(options);
    gpgpu::ComputeKernel kernel(ctx, compute_source);
    const auto x = test::random_floats(n), z = test::random_floats(n);
    const float a = 1.5f;
    std::vector<float> host(n, test::poison_float());
    kernel.run({{"x", x}, {"z", z}, {"w", gpgpu::out(host)}, {"a", a}});
    expect_axpz(x, z, a, host);

    const auto bx = gpgpu::Buffer::from(ctx, x), bz = gpgpu::Buffer::from(ctx, z);
    gpgpu::Buffer bw(ctx, gpgpu::ElementType::Float32, n);
    kernel.run({{"x", bx}, {"z", bz}, {"w", bw}, {"a", a}});
    std::vector<float> device(n, test::poison_float());
    bw.download(std::span<float>(device));
    EXPECT_TRUE(same_float_bits(host, device));

    std::vector<float> async(n, test::poison_float());
    auto pending = kernel.run_async({{"x", x}, {"z", z}, {"w", gpgpu::out(async)}, {"a", a}});
    pending.wait();
    EXPECT_TRUE(same_float_bits(host, async));
  }
}

TEST(DataPath, TransformFeedbackHostBufferAndAsyncRunsAgreeInEveryMode) {
  RestoreDataPath restore;
  auto& ctx = test::context();
  const std::size_t n = 3001;
  for (const auto& [name, options] : configurations()) {
    SCOPED_TRACE(name);
    ctx.set_data_path(options);
    // Two outputs of different widths: captured separately.
    gpgpu::TransformFeedbackKernel kernel(ctx, R"(
      in float A;
      in vec2 B;
      out float C;
      out vec2 D;
      void main() { C = A * B.x + B.y; D = B * A; })");
    const auto a = test::random_floats(n), b = test::random_floats(2 * n);
    std::vector<float> c(n, test::poison_float()), d(2 * n, test::poison_float());
    kernel.run({{"A", a}, {"B", b}, {"C", c}, {"D", d}});
    for (std::size_t i = 0; i < n; ++i) {
      // One product and one sum (or one fma): at most 2 roundings of their magnitudes.
      const double exact = static_cast<double>(a[i]) * b[2 * i] + b[2 * i + 1];
      const double mag = std::abs(static_cast<double>(a[i]) * b[2 * i]) + std::abs(exact);
      ASSERT_NEAR(c[i], exact, 2 * test::eps32 * mag) << i;
      ASSERT_NEAR(d[2 * i], static_cast<double>(b[2 * i]) * a[i], test::eps32 * std::abs(d[2 * i]));
    }
    const auto ba = gpgpu::Buffer::from(ctx, a), bb = gpgpu::Buffer::from(ctx, b);
    gpgpu::Buffer bc(ctx, gpgpu::ElementType::Float32, n),
        bd(ctx, gpgpu::ElementType::Float32, 2 * n);
    kernel.run({{"A", ba}, {"B", bb}, {"C", bc}, {"D", bd}});
    EXPECT_TRUE(same_float_bits(c, bc.to_vector<float>()));
    EXPECT_TRUE(same_float_bits(d, bd.to_vector<float>()));

    std::vector<float> c2(n, test::poison_float()), d2(2 * n, test::poison_float());
    auto pending = kernel.run_async({{"A", a}, {"B", b}, {"C", c2}, {"D", d2}});
    pending.wait();
    EXPECT_TRUE(same_float_bits(c, c2));
    EXPECT_TRUE(same_float_bits(d, d2));
  }
}

TEST(DataPath, TransformFeedbackAsyncRunsOfDifferentSizesCheckTheirOwnCaptureCounts) {
  auto& ctx = test::context();
  gpgpu::TransformFeedbackKernel kernel(ctx, "in float A; out float B; void main() { B = A + A; }");
  const auto a1 = test::random_floats(100), a2 = test::random_floats(333);
  std::vector<float> b1(100, test::poison_float()), b2(333, test::poison_float());
  auto first = kernel.run_async({{"A", a1}, {"B", b1}});
  auto second = kernel.run_async({{"A", a2}, {"B", b2}});
  second.wait();
  first.wait();
  for (std::size_t i = 0; i < a1.size(); ++i) ASSERT_EQ(b1[i], 2.0f * a1[i]);  // exact
  for (std::size_t i = 0; i < a2.size(); ++i) ASSERT_EQ(b2[i], 2.0f * a2[i]);
}

TEST(DataPath, InterleavedTransformFeedbackSplitsOnTheGpuForBuffersAndHostArrays) {
  auto& ctx = test::context();
  // Five outputs: more than the 4 separate attributes devices guarantee, so the capture is
  // interleaved into records and split afterwards.
  gpgpu::TransformFeedbackKernel kernel(ctx, R"(
    in float A;
    out float O1;
    out vec2 O2;
    out vec4 O3;
    out mat2x3 O4;
    out float O5;
    void main() {
      O1 = A; O2 = vec2(A, -A); O3 = vec4(A, 1.0, 2.0, 3.0);
      O4 = mat2x3(A, 2.0, 3.0, 4.0, 5.0, -A); O5 = 2.0 * A;
    })");
  if (kernel.captures_separately()) GTEST_SKIP() << "this device captures 5 outputs separately";
  const std::size_t n = 777;
  const auto a = test::random_floats(n);
  std::vector<float> o1(n, test::poison_float()), o2(2 * n, test::poison_float()),
      o3(4 * n, test::poison_float()), o4(6 * n, test::poison_float()), o5(n, test::poison_float());
  kernel.run({{"A", a}, {"O1", o1}, {"O2", o2}, {"O3", o3}, {"O4", o4}, {"O5", o5}});
  for (std::size_t i = 0; i < n; ++i) {  // all exact: copies, negation, doubling
    ASSERT_EQ(o1[i], a[i]);
    ASSERT_EQ(o2[2 * i + 1], -a[i]);
    ASSERT_EQ(o3[4 * i], a[i]);
    ASSERT_EQ(o3[4 * i + 3], 3.0f);
    const std::vector<float> columns = {a[i], 2.0f, 3.0f, 4.0f, 5.0f, -a[i]};
    ASSERT_EQ(std::vector<float>(o4.begin() + 6 * i, o4.begin() + 6 * i + 6), columns) << i;
    ASSERT_EQ(o5[i], 2.0f * a[i]);
  }
  // The same into Buffers (split on the GPU, never through the host) and asynchronously.
  gpgpu::Buffer b1(ctx, gpgpu::ElementType::Float32, n),
      b3(ctx, gpgpu::ElementType::Float32, 4 * n), b4(ctx, gpgpu::ElementType::Float32, 6 * n);
  std::vector<float> h2(2 * n, test::poison_float()), h5(n, test::poison_float());
  kernel
      .run_async({{"A", gpgpu::Buffer::from(ctx, a)},
                  {"O1", b1},
                  {"O2", h2},
                  {"O3", b3},
                  {"O4", b4},
                  {"O5", h5}})
      .wait();
  EXPECT_TRUE(same_float_bits(o1, b1.to_vector<float>()));
  EXPECT_TRUE(same_float_bits(o2, h2));
  EXPECT_TRUE(same_float_bits(o3, b3.to_vector<float>()));
  EXPECT_TRUE(same_float_bits(o4, b4.to_vector<float>()));
  EXPECT_TRUE(same_float_bits(o5, h5));
}

TEST(DataPath, FragmentHostTextureAndAsyncRunsAgreeInEveryMode) {
  RestoreDataPath restore;
  auto& ctx = test::context();
  if (!ctx.info().has_color_buffer_float()) GTEST_SKIP() << "no float render targets";
  const std::size_t rows = 37, cols = 53;
  for (const auto& [name, options] : configurations()) {
    SCOPED_TRACE(name);
    ctx.set_data_path(options);
    gpgpu::FragmentKernel kernel(ctx, R"(
      uniform sampler2D m;
      uniform float k;
      layout(location = 0) out float r;
      layout(location = 1) out vec4 q;
      void main() {
        vec4 v = texelFetch(m, gpgpu_coord(), 0);
        r = k * v.x;
        q = v * k;
      })");
    const auto values = test::random_floats(rows * cols * 4);
    const auto m = gpgpu::Texture::from(ctx, gpgpu::TexelType::Vec4, {rows, cols}, values);
    const float k = 0.75f;
    std::vector<float> r(rows * cols, test::poison_float()),
        q(rows * cols * 4, test::poison_float());
    kernel.run({{"m", m}, {"k", k}, {"r", r}, {"q", q}}, rows, cols);
    for (std::size_t i = 0; i < rows * cols; ++i) {
      ASSERT_NEAR(r[i], static_cast<double>(k) * values[4 * i], test::eps32 * std::abs(r[i])) << i;
      for (int c = 0; c < 4; ++c) {
        ASSERT_NEAR(q[4 * i + c], static_cast<double>(k) * values[4 * i + c],
                    test::eps32 * std::abs(q[4 * i + c]));
      }
    }
    gpgpu::Texture tr(ctx, gpgpu::TexelType::Float, {rows, cols});
    gpgpu::Texture tq(ctx, gpgpu::TexelType::Vec4, {rows, cols});
    kernel.run({{"m", m}, {"k", k}, {"r", tr}, {"q", tq}});
    EXPECT_TRUE(same_float_bits(r, tr.to_vector<float>()));
    EXPECT_TRUE(same_float_bits(q, tq.to_vector<float>()));

    std::vector<float> r2(rows * cols, test::poison_float()),
        q2(rows * cols * 4, test::poison_float());
    kernel.run_async({{"m", m}, {"k", k}, {"r", r2}, {"q", q2}}, rows, cols).wait();
    EXPECT_TRUE(same_float_bits(r, r2));
    EXPECT_TRUE(same_float_bits(q, q2));
  }
}

TEST(DataPath, BufferTransfersOfOddSizesChunkBoundariesAndMisalignedOffsets) {
  RestoreDataPath restore;
  auto& ctx = test::context();
  const std::size_t size = 4 * 1024 + 7;  // floats: a little over four 4 KiB chunks
  for (const auto& [name, options] : configurations()) {
    SCOPED_TRACE(name);
    ctx.set_data_path(options);
    gpgpu::Buffer buffer(ctx, gpgpu::ElementType::Float32, size);
    std::vector<float> expected = test::random_floats(size);
    buffer.upload(expected);
    // Chunk boundaries (1024 floats per 4 KiB chunk) and odd offsets, each checked against
    // a host copy of what the whole buffer should hold.
    const std::pair<std::size_t, std::size_t> pieces[] = {
        {0, 1},        {1, 3},        {3, 1021}, {1021, 1024}, {1023, 1025}, {2047, 2049},
        {size - 1, 1}, {5, size - 5}, {0, size}, {size, 0},    {17, 0}};
    for (const auto& [offset, count] : pieces) {
      SCOPED_TRACE("offset " + std::to_string(offset) + ", count " + std::to_string(count));
      const auto values = test::random_floats(count);
      buffer.upload(std::span<const float>(values), offset);
      std::copy(values.begin(), values.end(),
                expected.begin() + static_cast<std::ptrdiff_t>(offset));
      std::vector<float> part(count, test::poison_float());
      buffer.download(std::span<float>(part), offset);
      ASSERT_TRUE(same_float_bits(part, values));
      std::vector<float> whole(size, test::poison_float());
      buffer.download(std::span<float>(whole));
      ASSERT_TRUE(same_float_bits(whole, expected));
    }
    std::vector<float> empty;
    buffer.download(std::span<float>(empty), size);  // zero-length at the end: nothing moves
    EXPECT_THROW(buffer.upload(std::span<const float>(expected.data(), 2), size - 1),
                 gpgpu::SizeMismatchError);
  }
}

TEST(DataPath, TextureTransfersOfOddShapesInEveryMode) {
  RestoreDataPath restore;
  auto& ctx = test::context();
  for (const auto& [name, options] : configurations()) {
    SCOPED_TRACE(name);
    ctx.set_data_path(options);
    for (auto type : {gpgpu::TexelType::Float, gpgpu::TexelType::Vec2, gpgpu::TexelType::Vec3,
                      gpgpu::TexelType::Vec4}) {
      const auto values =
          test::random_floats(1237 * static_cast<std::size_t>(gpgpu::components(type)));
      // A 1-D array wrapped in rows of 100 texels: 13 rows, the last one partial.
      const auto texture = gpgpu::Texture::from_array(ctx, type, values, 100);
      std::vector<float> back(values.size(), test::poison_float());
      texture.download(std::span<float>(back));
      ASSERT_TRUE(same_float_bits(values, back)) << gpgpu::to_string(type);
    }
  }
}

TEST(DataPath, AsyncHandlesWaitInAnyOrderAndUnwaitedOnesDeliverBeforeTheyGo) {
  RestoreDataPath restore;
  auto& ctx = test::context();
  for (const auto& [name, options] : configurations()) {
    SCOPED_TRACE(name);
    ctx.set_data_path(options);
    gpgpu::ComputeKernel kernel(ctx, compute_source);
    const std::size_t n = 3000;
    std::vector<std::vector<float>> x(3), z(3), w(3);
    std::vector<gpgpu::PendingRun> runs;
    for (int i = 0; i < 3; ++i) {
      x[i] = test::random_floats(n);
      z[i] = test::random_floats(n);
      w[i].assign(n, test::poison_float());
      runs.push_back(
          kernel.run_async({{"x", x[i]}, {"z", z[i]}, {"w", gpgpu::out(w[i])}, {"a", 2.0f}}));
    }
    runs[2].wait();
    runs[0].wait();
    EXPECT_THROW(runs[0].wait(), gpgpu::TransferError);
    runs[1].wait();
    for (int i = 0; i < 3; ++i) expect_axpz(x[i], z[i], 2.0f, w[i]);

    // Downloads too, and a handle dropped without wait(): its array is filled by the time
    // the handle is gone.
    const auto values = test::random_floats(n);
    const auto buffer = gpgpu::Buffer::from(ctx, values);
    std::vector<float> first(n, test::poison_float()), second(n, test::poison_float());
    auto late = buffer.download_async(std::span<float>(second));
    { auto dropped = buffer.download_async(std::span<float>(first)); }
    EXPECT_TRUE(same_float_bits(first, values));
    late.wait();
    EXPECT_TRUE(same_float_bits(second, values));
    gpgpu::PendingRun empty;
    EXPECT_THROW(empty.wait(), gpgpu::TransferError);
  }
}

TEST(DataPath, LargeDownloadsThroughTheDeliveryThreadWrapTheRing) {
  RestoreDataPath restore;
  auto& ctx = test::context();
  if (!ctx.info().has_buffer_storage()) GTEST_SKIP() << "no persistently mapped staging";
  // Arrays far above the size the waiting thread delivers itself (256 KiB), through a ring
  // of three 64 KiB chunks: every run wraps it many times while other runs are in flight.
  DataPathOptions o;
  o.staging = StagingMode::PersistentMapped;
  o.chunk_bytes = 64 * 1024;
  o.staging_chunks = 3;
  o.host_threads = 2;
  o.delivery_thread = 1;
  ctx.set_data_path(o);
  if (!ctx.data_path_stats().delivery_thread) {
    // A measured limit: a CPU device that queues its work delivers on the waiting thread
    // (there a fence waited from another thread signalled early; docs/portability.md).
    GTEST_SKIP() << "no delivery thread on this device (it runs on the CPU and queues its work)";
  }
  gpgpu::ComputeKernel kernel(ctx, compute_source);
  const std::size_t n = 200000;  // 800 KB per array
  std::vector<std::vector<float>> x(4), z(4), w(4);
  std::vector<gpgpu::PendingRun> runs;
  for (int i = 0; i < 4; ++i) {
    x[i] = test::random_floats(n);
    z[i] = test::random_floats(n);
    w[i].assign(n, test::poison_float());
    runs.push_back(
        kernel.run_async({{"x", x[i]}, {"z", z[i]}, {"w", gpgpu::out(w[i])}, {"a", 0.5f}}));
  }
  runs[3].wait();
  runs[1].wait();
  runs.erase(runs.begin(), runs.begin() + 1);  // run 0 dropped unwaited: it delivers first
  runs[1].wait();                              // run 2
  EXPECT_TRUE(ctx.data_path_stats().delivery_thread);
  for (int i = 0; i < 4; ++i) expect_axpz(x[i], z[i], 0.5f, w[i]);
  runs.clear();
  const auto buffer = gpgpu::Buffer::from(ctx, x[0]);
  std::vector<float> back(n, test::poison_float());
  buffer.download(std::span<float>(back));
  EXPECT_TRUE(same_float_bits(back, x[0]));
}

TEST(DataPath, AsyncHandlesSayWhenTheirContextWasReleased) {
  gpgpu::Context own({.device = std::to_string(test::context().info().device_index)});
  gpgpu::ComputeKernel kernel(own, compute_source);
  const std::size_t n = 1000;
  const auto x = test::random_floats(n), z = test::random_floats(n);
  std::vector<float> w(n, test::poison_float());
  auto run = kernel.run_async({{"x", x}, {"z", z}, {"w", gpgpu::out(w)}, {"a", 3.0f}});
  const auto buffer = gpgpu::Buffer::from(own, x);
  std::vector<float> back(n);
  auto download = buffer.download_async(std::span<float>(back));
  own.release();
  try {
    run.wait();
    ADD_FAILURE() << "wait() after Context::release did not throw";
  } catch (const gpgpu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("released"), std::string::npos) << e.what();
  }
  EXPECT_THROW(download.wait(), gpgpu::Error);
  // Destroying the handles after the release must neither throw nor crash (checked by the
  // end of this scope, under the sanitizers in CI).
}

TEST(DataPath, DevicePoolDoesNotGrowOverTenThousandRuns) {
  RestoreDataPath restore;
  auto& ctx = test::context();
  gpgpu::ComputeKernel kernel(ctx, compute_source);
  const std::size_t n = 256;
  const auto x = test::random_floats(n), z = test::random_floats(n);
  std::vector<float> w(n);
  for (int i = 0; i < 10; ++i) kernel.run({{"x", x}, {"z", z}, {"w", gpgpu::out(w)}, {"a", 1.0f}});
  const auto before = ctx.data_path_stats();
  for (int i = 0; i < 10000; ++i) {
    kernel.run({{"x", x}, {"z", z}, {"w", gpgpu::out(w)}, {"a", 1.0f}});
  }
  const auto after = ctx.data_path_stats();
  EXPECT_EQ(after.device_allocations, before.device_allocations);
  EXPECT_EQ(after.pooled_buffers, before.pooled_buffers);
  EXPECT_EQ(after.pooled_bytes, before.pooled_bytes);
  EXPECT_EQ(after.buffers_in_use, 0u);
  EXPECT_EQ(after.pending, 0u);
  EXPECT_GE(after.pool_reuses, before.pool_reuses + 3 * 10000);
  expect_axpz(x, z, 1.0f, w);
  ctx.trim_device_pool();
  EXPECT_EQ(ctx.data_path_stats().pooled_bytes, 0u);
}

TEST(DataPath, BadOptionsAreRefusedAndChangeNothing) {
  RestoreDataPath restore;
  auto& ctx = test::context();
  const auto before = ctx.data_path();
  if (!ctx.info().has_buffer_storage()) {
    DataPathOptions o;
    o.staging = StagingMode::PersistentMapped;
    EXPECT_THROW(ctx.set_data_path(o), gpgpu::UnsupportedError);
  }
  const auto after = ctx.data_path();
  EXPECT_EQ(after.staging, before.staging);
  EXPECT_EQ(after.chunk_bytes, before.chunk_bytes);
  EXPECT_GT(after.chunk_bytes, 0u);
  EXPECT_GT(after.host_threads, 0u);
  DataPathOptions lanes;
  lanes.copy_context = 2;
  EXPECT_THROW(ctx.set_data_path(lanes), gpgpu::ArgumentError);
  EXPECT_EQ(ctx.data_path().copy_context, before.copy_context);
}

TEST(DataPath, ProfilerRecordsEveryKindOfKernel) {
  auto& ctx = test::context();
  gpgpu::Profiler profiler(ctx);
  gpgpu::TransformFeedbackKernel tf(ctx, "in float A; out float B; void main() { B = A; }", {},
                                    "tf copy");
  std::vector<float> a = test::random_floats(16), b(16);
  tf.run({{"A", a}, {"B", b}});
  profiler.record(tf);
  // A source of its own: the program cache keeps the label of a source's first kernel.
  gpgpu::ComputeKernel compute(ctx, R"(
    layout(local_size_x = 8) in;
    layout(std430, binding = 0) buffer X { float x[]; };
    void main() { uint i = gpgpu_index(); if (i < gpgpu_count) x[i] *= 3.0; })",
                               {}, "triple");
  profiler.record(compute);
  EXPECT_EQ(profiler.stats("tf copy").count, 1u);
  EXPECT_EQ(profiler.stats("triple").count, 1u);
}

}  // namespace
