// TransferQueue, PendingTransfer and HostBuffer: every method moves fresh random data intact
// (chunked, overlapping, interleaved with kernels), and misuse fails with specific errors.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/host_buffer.hpp"
#include "gpgpu/transfer_queue.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::Buffer;
using gpgpu::ElementType;
using gpgpu::PendingTransfer;
using gpgpu::TransferMethod;
using gpgpu::TransferOptions;
using gpgpu::TransferQueue;
using gpgpu::test::context;
using gpgpu::test::poison_float;
using gpgpu::test::random_floats;

// Bitwise equality, so NaN poison left anywhere fails and -0.0f is not mistaken for 0.0f.
void expect_same_bits(const std::vector<float>& expected, const std::vector<float>& actual,
                      const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (std::memcmp(&expected[i], &actual[i], sizeof(float)) != 0) {
      if (++bad <= 5)
        ADD_FAILURE() << what << ": element " << i << " is " << actual[i] << ", expected "
                      << expected[i];
    }
  }
  EXPECT_EQ(bad, 0u) << what;
}

Buffer poisoned_buffer(std::size_t n) {
  return Buffer::from(context(), std::vector<float>(n, poison_float()));
}

class TransferMethods : public ::testing::TestWithParam<TransferMethod> {
 protected:
  // Small slots so that every test crosses chunk boundaries and wraps the ring.
  void SetUp() override {
    if (GetParam() == TransferMethod::PersistentMapped && !context().info().has_buffer_storage()) {
      EXPECT_THROW(TransferQueue(context(), TransferOptions{GetParam(), 4096, 2, 1}),
                   gpgpu::UnsupportedError);
      GTEST_SKIP() << "no GL_EXT_buffer_storage on this device";
    }
  }
  TransferQueue make_queue(std::size_t chunk_bytes = 4096, std::size_t slots = 2) {
    return TransferQueue(context(), TransferOptions{GetParam(), chunk_bytes, slots, 1});
  }
};

TEST_P(TransferMethods, UploadDeliversEveryElement) {
  auto queue = make_queue();
  EXPECT_EQ(queue.method(), GetParam());
  const std::size_t n = 10007;  // not a whole number of 1024-float chunks
  const auto host = random_floats(n);
  Buffer buffer = poisoned_buffer(n);
  auto pending = queue.upload(buffer, host);
  EXPECT_EQ(pending.bytes(), n * 4);
  pending.wait();
  EXPECT_TRUE(pending.waited());
  expect_same_bits(host, buffer.to_vector<float>(), "uploaded");
}

TEST_P(TransferMethods, UploadSourceMayBeReusedAtOnce) {
  auto queue = make_queue();
  const std::size_t n = 3000;
  auto host = random_floats(n);
  const auto expected = host;
  Buffer buffer = poisoned_buffer(n);
  auto pending = queue.upload(buffer, host);
  std::fill(host.begin(), host.end(), poison_float());  // must not reach the buffer
  pending.wait();
  expect_same_bits(expected, buffer.to_vector<float>(), "uploaded before the source changed");
}

TEST_P(TransferMethods, SeveralHostThreadsCopyLargeChunks) {
  // 4 MiB chunks, so that three threads each copy more than the 1 MiB a thread is given.
  TransferQueue queue(context(), TransferOptions{GetParam(), std::size_t{4} << 20, 2, 3});
  const std::size_t n = (std::size_t{10} << 20) / 4 + 7;
  const auto host = random_floats(n);
  Buffer buffer = poisoned_buffer(n);
  queue.upload(buffer, host).wait();
  std::vector<float> out(n, poison_float());
  queue.download(buffer, out).wait();
  expect_same_bits(host, out, "through three host threads");
}

TEST_P(TransferMethods, DownloadDeliversEveryElement) {
  auto queue = make_queue();
  const std::size_t n = 9001;
  const auto host = random_floats(n);
  Buffer buffer = Buffer::from(context(), host);
  std::vector<float> out(n, poison_float());
  auto pending = queue.download(buffer, out);
  pending.wait();
  expect_same_bits(host, out, "downloaded");
}

TEST_P(TransferMethods, OffsetsAndIntegerTypes) {
  auto queue = make_queue();
  const std::size_t n = 5000, offset = 1234, count = 2345;
  const auto ints = gpgpu::test::random_ints(count, -1000000, 1000000);
  std::vector<std::int32_t> initial(n, gpgpu::test::poison_int);
  Buffer buffer = Buffer::from(context(), initial);
  queue.upload(buffer, ints, offset).wait();
  std::vector<std::int32_t> back(count, 0);
  queue.download(buffer, back, offset).wait();
  EXPECT_EQ(back, ints);
  const auto all = buffer.to_vector<std::int32_t>();
  for (std::size_t i = 0; i < n; ++i) {
    const bool inside = i >= offset && i < offset + count;
    ASSERT_EQ(all[i], inside ? ints[i - offset] : gpgpu::test::poison_int) << "element " << i;
  }
}

TEST_P(TransferMethods, LaterOverlappingUploadsWin) {
  auto queue = make_queue();
  const std::size_t n = 6000;
  const auto first = random_floats(n);
  const auto second = random_floats(n / 2);
  Buffer buffer = poisoned_buffer(n);
  auto a = queue.upload(buffer, first);
  auto b = queue.upload(buffer, second, n / 4);  // overlaps the middle of the first
  b.wait();
  a.wait();  // waiting out of order is fine
  auto expected = first;
  std::copy(second.begin(), second.end(), expected.begin() + n / 4);
  expect_same_bits(expected, buffer.to_vector<float>(), "overlapping uploads");
}

TEST_P(TransferMethods, PipelineOfUploadComputeDownloadWithoutWaits) {
  auto queue = make_queue(8192, 3);
  gpgpu::ComputeKernel affine(context(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) readonly buffer X { float x[]; };
    layout(std430, binding = 1) writeonly buffer Y { float y[]; };
    uniform float a;
    uniform float b;
    void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] = a * x[i] + b; })");
  const std::size_t chunk = 3001, chunks = 7;
  const auto host_in = random_floats(chunk * chunks);
  std::vector<float> host_out(chunk * chunks, poison_float());
  // Two buffer pairs, reused alternately: GL's ordering must keep chunk c's upload from
  // overwriting x before chunk c-2's dispatch has read it.
  Buffer x[2] = {poisoned_buffer(chunk), poisoned_buffer(chunk)};
  Buffer y[2] = {poisoned_buffer(chunk), poisoned_buffer(chunk)};
  std::vector<PendingTransfer> pending;
  const float a = 1.5f, b = -0.25f;
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::span<const float> in(host_in.data() + c * chunk, chunk);
    pending.push_back(queue.upload(x[c % 2], in));
    affine.run({{"x", x[c % 2]}, {"y", y[c % 2]}, {"a", a}, {"b", b}});
    pending.push_back(
        queue.download(y[c % 2], std::span<float>(host_out.data() + c * chunk, chunk)));
  }
  for (auto& p : pending) p.wait();
  std::vector<float> expected(host_in.size());
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = a * host_in[i] + b;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ASSERT_NEAR(host_out[i], expected[i], 4 * gpgpu::test::eps32 * (std::abs(expected[i]) + 1))
        << "element " << i;
  }
}

TEST_P(TransferMethods, ManyDownloadsInFlightWrapTheRing) {
  auto queue = make_queue(1024, 2);  // 256 floats a slot, 2 slots
  const std::size_t n = 1500, transfers = 6;
  std::vector<std::vector<float>> sources, results;
  std::vector<Buffer> buffers;
  std::vector<PendingTransfer> pending;
  for (std::size_t t = 0; t < transfers; ++t) {
    sources.push_back(random_floats(n));
    buffers.push_back(Buffer::from(context(), sources.back()));
    results.emplace_back(n, poison_float());
  }
  for (std::size_t t = 0; t < transfers; ++t)
    pending.push_back(queue.download(buffers[t], results[t]));
  for (std::size_t t = transfers; t-- > 0;) pending[t].wait();  // newest first
  for (std::size_t t = 0; t < transfers; ++t) {
    expect_same_bits(sources[t], results[t], "download " + std::to_string(t));
  }
}

TEST_P(TransferMethods, FinishCompletesEverything) {
  auto queue = make_queue();
  const auto host = random_floats(4000);
  Buffer buffer = Buffer::from(context(), host);
  std::vector<float> out(host.size(), poison_float());
  auto pending = queue.download(buffer, out);
  queue.finish();
  EXPECT_TRUE(pending.ready());
  expect_same_bits(host, out, "after finish");
  pending.wait();  // still allowed once: finish() is not the handle's wait
  EXPECT_THROW(pending.wait(), gpgpu::TransferError);
}

TEST_P(TransferMethods, DroppedHandleStillDelivers) {
  auto queue = make_queue();
  const auto host = random_floats(5000);
  Buffer buffer = Buffer::from(context(), host);
  std::vector<float> out(host.size(), poison_float());
  { auto pending = queue.download(buffer, out); }  // destroyed without wait(): waits
  expect_same_bits(host, out, "download whose handle was dropped");
}

TEST_P(TransferMethods, BufferReleasedWhileDownloadPending) {
  auto queue = make_queue();
  const auto host = random_floats(7000);
  std::vector<float> out(host.size(), poison_float());
  PendingTransfer pending;
  {
    Buffer buffer = Buffer::from(context(), host);
    pending = queue.download(buffer, out);
    buffer.release();  // GL keeps the storage until the copies that read it are done
  }
  pending.wait();
  expect_same_bits(host, out, "download from a buffer released meanwhile");
}

TEST_P(TransferMethods, ZeroElementsIsAnEmptyTransfer) {
  auto queue = make_queue();
  Buffer buffer = poisoned_buffer(10);
  auto pending = queue.upload(buffer, std::span<const float>());
  EXPECT_EQ(pending.bytes(), 0u);
  pending.wait();
}

TEST_P(TransferMethods, HostBufferRoundTrip) {
  auto queue = make_queue();
  const std::size_t n = 6007;
  const auto host = random_floats(n);
  gpgpu::HostBuffer up(context(), ElementType::Float32, n, gpgpu::HostAccess::Write);
  gpgpu::HostBuffer down(context(), ElementType::Float32, n, gpgpu::HostAccess::Read);
  EXPECT_EQ(up.is_mapped(), context().info().has_buffer_storage());
  std::copy(host.begin(), host.end(), up.span<float>().begin());
  std::fill(down.span<float>().begin(), down.span<float>().end(), poison_float());
  Buffer buffer = poisoned_buffer(n);
  queue.copy(up, buffer).wait();
  expect_same_bits(host, buffer.to_vector<float>(), "HostBuffer -> Buffer");
  // A part, at offsets on both sides.
  queue.copy(buffer, down, 100, 200, 3000).wait();
  const auto result = down.span<const float>();
  for (std::size_t i = 0; i < n; ++i) {
    if (i >= 200 && i < 3200) {
      ASSERT_EQ(result[i], host[i - 100]) << "element " << i;
    } else {
      ASSERT_TRUE(std::isnan(result[i])) << "element " << i << " outside the copied range changed";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, TransferMethods,
                         ::testing::Values(TransferMethod::PersistentMapped,
                                           TransferMethod::StagingBuffers, TransferMethod::Direct),
                         [](const auto& param_info) {
                           std::string name = gpgpu::to_string(param_info.param);
                           name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
                           return name;
                         });

TEST(TransferErrors, WaitTwiceAndEmptyHandles) {
  TransferQueue queue(context());
  Buffer buffer = poisoned_buffer(100);
  auto pending = queue.upload(buffer, random_floats(100));
  pending.wait();
  EXPECT_THROW(pending.wait(), gpgpu::TransferError);
  PendingTransfer empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_THROW(empty.wait(), gpgpu::TransferError);
  PendingTransfer moved_to = queue.upload(buffer, random_floats(10));
  PendingTransfer moved_from = std::move(moved_to);
  EXPECT_THROW(moved_to.wait(), gpgpu::TransferError);  // NOLINT(bugprone-use-after-move)
  moved_from.wait();
}

TEST(TransferErrors, BadArgumentsChangeNothing) {
  TransferQueue queue(context());
  const auto host = random_floats(64);
  Buffer buffer = Buffer::from(context(), host);
  std::vector<std::int32_t> ints(64, 1);
  EXPECT_THROW(queue.upload(buffer, ints), gpgpu::TypeMismatchError);
  EXPECT_THROW(queue.download(buffer, ints), gpgpu::TypeMismatchError);
  EXPECT_THROW(queue.upload(buffer, random_floats(65)), gpgpu::SizeMismatchError);
  EXPECT_THROW(queue.upload(buffer, random_floats(10), 60), gpgpu::SizeMismatchError);
  std::vector<float> out(10);
  EXPECT_THROW(queue.download(buffer, out, 55), gpgpu::SizeMismatchError);
  expect_same_bits(host, buffer.to_vector<float>(), "after rejected transfers");

  Buffer released = Buffer::from(context(), host);
  released.release();
  EXPECT_THROW(queue.upload(released, host), gpgpu::ArgumentError);
  EXPECT_THROW(queue.download(released, out), gpgpu::ArgumentError);
  Buffer never;
  EXPECT_THROW(queue.upload(never, host), gpgpu::ArgumentError);

  gpgpu::HostBuffer ints_host(context(), ElementType::Int32, 64);
  EXPECT_THROW(ints_host.span<float>(), gpgpu::TypeMismatchError);
  EXPECT_THROW(queue.copy(ints_host, buffer), gpgpu::TypeMismatchError);
  gpgpu::HostBuffer small(context(), ElementType::Float32, 8);
  EXPECT_THROW(queue.copy(buffer, small), gpgpu::SizeMismatchError);
  EXPECT_THROW(gpgpu::HostBuffer(context(), ElementType::Float32, 0), gpgpu::ArgumentError);
  EXPECT_THROW(TransferQueue(context(), TransferOptions{TransferMethod::Auto, 0, 2, 1}),
               gpgpu::ArgumentError);
  EXPECT_THROW(TransferQueue(context(), TransferOptions{TransferMethod::Auto, 4096, 0, 1}),
               gpgpu::ArgumentError);
  EXPECT_THROW(TransferQueue(context(), TransferOptions{TransferMethod::Auto, 4096, 2, 0}),
               gpgpu::ArgumentError);
}

TEST(TransferErrors, BufferOfAnotherContext) {
  gpgpu::Context other;
  Buffer foreign = Buffer::from(other, random_floats(16));
  context().make_current();
  TransferQueue queue(context());
  EXPECT_THROW(queue.upload(foreign, random_floats(16)), gpgpu::ArgumentError);
}

TEST(TransferErrors, ContextReleasedWhilePending) {
  gpgpu::Context own;
  TransferQueue queue(own);
  Buffer buffer = Buffer::from(own, random_floats(1000));
  std::vector<float> out(1000, poison_float());
  auto pending = queue.download(buffer, out);
  own.release();
  EXPECT_THROW(pending.wait(), gpgpu::Error);
  context().make_current();
}

TEST(TransferMethodsAuto, PicksPersistentMappingWhereAvailable) {
  TransferQueue queue(context());
  EXPECT_EQ(queue.method(), context().info().has_buffer_storage() ? TransferMethod::PersistentMapped
                                                                  : TransferMethod::StagingBuffers);
  EXPECT_EQ(queue.options().chunk_bytes % 4, 0u);
}

}  // namespace

namespace {

TEST(TransferQueueCopy, DeviceToDeviceWithOffsets) {
  TransferQueue queue(context());
  const std::size_t n = 5003;
  const auto host = random_floats(n);
  Buffer a = Buffer::from(context(), host);
  Buffer b = poisoned_buffer(n);
  queue.copy(a, b).wait();
  expect_same_bits(host, b.to_vector<float>(), "whole copy");
  Buffer c = poisoned_buffer(n);
  queue.copy(a, c, 10, 2000, 1000).wait();
  const auto part = c.to_vector<float>();
  for (std::size_t i = 0; i < n; ++i) {
    if (i >= 2000 && i < 3000) {
      ASSERT_EQ(part[i], host[i - 1990]) << "element " << i;
    } else {
      ASSERT_TRUE(std::isnan(part[i])) << "element " << i << " outside the copy changed";
    }
  }
  // Within one buffer: disjoint ranges are fine, overlapping ones are refused.
  queue.copy(a, a, 0, 4000, 1000).wait();
  const auto self = a.to_vector<float>();
  for (std::size_t i = 0; i < 1000; ++i) ASSERT_EQ(self[4000 + i], host[i]);
  EXPECT_THROW(queue.copy(a, a, 0, 500, 1000), gpgpu::ArgumentError);
  EXPECT_THROW(queue.copy(a, c, 0, 10, 0), gpgpu::SizeMismatchError);  // all of a into c + 10
  Buffer ints = Buffer::from(context(), std::vector<std::int32_t>(n, 3));
  EXPECT_THROW(queue.copy(a, ints), gpgpu::TypeMismatchError);
}

}  // namespace
