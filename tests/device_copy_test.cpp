// Device-to-device copies (resources/device_copy.hpp): the compute copy, forced on whatever
// device runs the tests, against the words it must move. Its uvec4 body with glCopyBufferSubData
// head and tail (offsets alike within 16 bytes), the uint kernel (offsets unlike), several
// dispatches when a chunk limit splits the copy, and disjoint ranges of one buffer. Random
// words, poisoned destinations, every word checked bit for bit, inside and outside the range.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "gl/context_state.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "resources/device_copy.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::Buffer;
using gpgpu::detail::DeviceCopyMethod;
using gpgpu::detail::DeviceCopyOptions;
using gpgpu::test::context;
using gpgpu::test::poison_uint;

struct CopyCase {
  std::size_t words, from, to, count;  // buffer size, source and destination word offsets
  DeviceCopyOptions options;
};

// Copies case.count words from a random source into a poisoned destination and checks every
// word of both: the copied range, the poison around it, the source unchanged.
void check_copy(const CopyCase& c) {
  const auto source_words = gpgpu::test::random_uints(c.words, 0, 0xffffffffu);
  Buffer source = Buffer::from(context(), source_words);
  Buffer destination = Buffer::from(context(), std::vector<std::uint32_t>(c.words, poison_uint));
  context().state()->ensure_current();
  gpgpu::detail::copy_on_device(*context().state(), source.gl_name(), 4 * c.from,
                                destination.gl_name(), 4 * c.to, 4 * c.count, c.options);
  const auto got = destination.to_vector<std::uint32_t>();
  for (std::size_t i = 0; i < c.words; ++i) {
    const bool inside = i >= c.to && i < c.to + c.count;
    const std::uint32_t want = inside ? source_words[i - c.to + c.from] : poison_uint;
    ASSERT_EQ(got[i], want) << "word " << i << (inside ? " (copied)" : " (outside the copy)")
                            << "; copy of " << c.count << " words from " << c.from << " to "
                            << c.to;
  }
  ASSERT_EQ(source.to_vector<std::uint32_t>(), source_words) << "the source changed";
}

TEST(DeviceCopy, KernelCopiesEveryWordAtAnyOffsets) {
  std::uniform_int_distribution<std::size_t> offset(0, 40);
  const DeviceCopyOptions kernel{DeviceCopyMethod::Kernel, 0};
  // 300,007 words take several trips of the sweeping groups on any device here.
  for (const std::size_t count : {1u, 3u, 4u, 5u, 17u, 4096u, 65'537u, 300'007u}) {
    const std::size_t from = offset(gpgpu::test::rng()), to = offset(gpgpu::test::rng());
    check_copy({from + count + 50, from, to, count, kernel});
    // Offsets alike within 16 bytes: the uvec4 body with a head and a tail.
    check_copy({count + 60, 5, 9, count, kernel});
    // Unlike: the uint kernel.
    check_copy({count + 60, 6, 9, count, kernel});
  }
}

TEST(DeviceCopy, ChunkLimitSplitsTheCopyIntoDispatches) {
  // 4 KiB a dispatch: the bound ranges start at the device's offset alignment, below the
  // copied words, and the uniforms point past the difference.
  const DeviceCopyOptions small{DeviceCopyMethod::Kernel, 4096};
  check_copy({100'000, 13, 1'001, 90'001, small});  // uvec4 body (13 and 1001 alike mod 4)
  check_copy({100'000, 14, 1'001, 90'001, small});  // uint
  check_copy({100'000, 0, 0, 100'000, small});
  // Too small to bind past the alignment: the driver's copy, still every word.
  check_copy({10'000, 3, 7, 9'000, {DeviceCopyMethod::Kernel, 8}});
}

TEST(DeviceCopy, DisjointRangesOfOneBuffer) {
  const std::size_t n = 50'000;
  const auto words = gpgpu::test::random_uints(n, 0, 0xffffffffu);
  Buffer b = Buffer::from(context(), words);
  context().state()->ensure_current();
  gpgpu::detail::copy_on_device(*context().state(), b.gl_name(), 4 * 100, b.gl_name(), 4 * 30'000,
                                4 * 20'000, {DeviceCopyMethod::Kernel, 0});
  const auto got = b.to_vector<std::uint32_t>();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t want = i >= 30'000 ? words[i - 30'000 + 100] : words[i];
    ASSERT_EQ(got[i], want) << "word " << i;
  }
}

TEST(DeviceCopy, EveryMethodAgrees) {
  for (const auto method :
       {DeviceCopyMethod::Auto, DeviceCopyMethod::Kernel, DeviceCopyMethod::CopyBufferSubData}) {
    check_copy({200'000, 7, 11, 150'000, {method, 0}});
  }
}

TEST(DeviceCopy, PartialWordsAreRefused) {
  Buffer a = Buffer::from(context(), std::vector<std::uint32_t>(16, 1u));
  context().state()->ensure_current();
  EXPECT_THROW(
      gpgpu::detail::copy_on_device(*context().state(), a.gl_name(), 2, a.gl_name(), 32, 8),
      gpgpu::ArgumentError);
}

}  // namespace
