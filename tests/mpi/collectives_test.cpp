// gpgpu::mpi's collectives on Buffers and host arrays, under mpirun with 2 and 3 ranks:
// allreduce of odd-sized Buffers (one and several pipeline chunks) against a float64 sum of
// every rank's inputs, the same bits on every rank, the async form around a kernel,
// broadcast and gather, and the agreed checks (every rank throws the same CollectiveError).
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/mpi/collectives.hpp"
#include "mpi_test_support.hpp"
#include "test_support.hpp"

namespace mpi = gpgpu::mpi;
using gpgpu::Buffer;
using gpgpu::test::context;
using gpgpu::test::eps32;
using gpgpu::test::floats_of;
using gpgpu::test::world;

namespace {

// On rank 0: whether every rank's copy of `mine` has the same bits as rank 0's.
bool same_bits_everywhere(const std::vector<float>& mine) {
  const auto all = mpi::gather(world(), std::span<const float>(mine), 0);
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (std::bit_cast<std::uint32_t>(all[i]) != std::bit_cast<std::uint32_t>(mine[i % mine.size()]))
      return false;
  }
  return true;
}

// Counts the elements of `got` outside `bound(i)` of `want(i)`; reports the first.
template <class Want, class Bound>
std::size_t count_off(const std::vector<float>& got, Want want, Bound bound, std::string& first) {
  std::size_t off = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double w = want(i), b = bound(i);
    if (!(std::abs(static_cast<double>(got[i]) - w) <= b)) {
      if (off++ == 0) first = fmt::format("element {}: got {}, want {} +- {}", i, got[i], w, b);
    }
  }
  return off;
}

}  // namespace

TEST(MpiCollectives, AllreduceOfOddSizedBuffersMatchesTheFloat64Sum) {
  const auto seed = gpgpu::test::shared_seed();
  SCOPED_TRACE(testing::Message() << "shared seed " << seed);
  const int n = world().size();
  // Both stagings: the data path, and the Context's mapped memory (reused from call to call:
  // each array still holds the last call's sums when the next download lands in it).
  const std::array<const gpgpu::Context*, 2> stagings{nullptr, &context()};
  for (const gpgpu::Context* staging : stagings) {
    for (std::size_t size :
         {std::size_t{1}, std::size_t{7}, std::size_t{1001}, std::size_t{4099}}) {
      for (std::size_t chunk : {std::size_t{1} << 20, std::size_t{1000}}) {
        for (auto op : {mpi::Reduction::Sum, mpi::Reduction::Mean}) {
          std::vector<std::vector<float>> inputs;
          for (int r = 0; r < n; ++r)
            inputs.push_back(floats_of(seed + static_cast<std::uint32_t>(size), r, size));
          Buffer b = Buffer::from(context(), inputs[world().rank()]);
          mpi::allreduce(world(), b, op, {.chunk_elements = chunk, .context = staging});
          const auto got = b.to_vector<float>();
          const double divisor = op == mpi::Reduction::Mean ? n : 1;
          // Float32 adds the n terms in some order: n - 1 roundings, each <= eps32 of a partial
          // sum, itself <= sum |x_r|; Mean's division rounds once more (eps32 of the result).
          auto want = [&](std::size_t i) {
            double s = 0;
            for (const auto& x : inputs) s += x[i];
            return s / divisor;
          };
          auto bound = [&](std::size_t i) {
            double a = 0;
            for (const auto& x : inputs) a += std::abs(x[i]);
            return ((n - 1) * eps32 * a + (divisor > 1 ? eps32 * a : 0.0)) / divisor;
          };
          std::string first;
          EXPECT_EQ(count_off(got, want, bound, first), 0u)
              << "size " << size << ", chunk " << chunk << (staging ? ", mapped" : "") << ": "
              << first;
          const bool same = same_bits_everywhere(got);
          if (world().rank() == 0) {
            EXPECT_TRUE(same) << "ranks disagree, size " << size;
          }
        }
      }
    }
  }
}

// Named, the Buffer's Context stages the chunks in its own mapped memory (one GPU copy each
// way): nothing goes through its data path, where the unnamed allreduce moves every byte down
// and back up.
TEST(MpiCollectives, NamingTheContextKeepsTheDataPathOutOfIt) {
  const std::size_t size = 1001;
  Buffer b = Buffer::from(context(), floats_of(gpgpu::test::shared_seed(), world().rank(), size));
  const auto before = context().data_path_stats();
  mpi::allreduce(world(), b, mpi::Reduction::Sum, {.context = &context()});
  const auto named = context().data_path_stats();
  EXPECT_EQ(named.bytes_downloaded, before.bytes_downloaded);
  EXPECT_EQ(named.bytes_uploaded, before.bytes_uploaded);
  mpi::allreduce(world(), b);
  const auto plain = context().data_path_stats();
  EXPECT_EQ(plain.bytes_downloaded - named.bytes_downloaded, 4 * size);
  EXPECT_EQ(plain.bytes_uploaded - named.bytes_uploaded, 4 * size);
}

TEST(MpiCollectives, AllreduceMinMaxAndIntegerSumsAreExact) {
  const auto seed = gpgpu::test::shared_seed();
  SCOPED_TRACE(testing::Message() << "shared seed " << seed);
  const int n = world().size(), me = world().rank();
  const std::size_t size = 333;
  std::vector<std::vector<float>> inputs;
  for (int r = 0; r < n; ++r) inputs.push_back(floats_of(seed, r, size));
  for (auto op : {mpi::Reduction::Min, mpi::Reduction::Max}) {
    Buffer b = Buffer::from(context(), inputs[me]);
    mpi::allreduce(world(), b, op);
    const auto got = b.to_vector<float>();
    for (std::size_t i = 0; i < size; ++i) {
      float want = inputs[0][i];
      for (const auto& x : inputs)
        want = op == mpi::Reduction::Min ? std::min(want, x[i]) : std::max(want, x[i]);
      EXPECT_EQ(got[i], want) << "element " << i;
    }
  }
  // int32: large values, so that the sum wraps modulo 2^32 as documented.
  std::vector<std::int32_t> mine(size);
  for (std::size_t i = 0; i < size; ++i)
    mine[i] = static_cast<std::int32_t>(std::bit_cast<std::uint32_t>(inputs[me][i]) * 2654435761u);
  Buffer b = Buffer::from(context(), mine);
  mpi::allreduce(world(), b);
  const auto got = b.to_vector<std::int32_t>();
  for (std::size_t i = 0; i < size; ++i) {
    std::uint32_t want = 0;
    for (const auto& x : inputs) want += std::bit_cast<std::uint32_t>(x[i]) * 2654435761u;
    EXPECT_EQ(static_cast<std::uint32_t>(got[i]), want) << "element " << i;
  }
}

TEST(MpiCollectives, AsyncAllreduceLetsAKernelRunMeanwhile) {
  const auto seed = gpgpu::test::shared_seed();
  SCOPED_TRACE(testing::Message() << "shared seed " << seed);
  const int n = world().size();
  const std::size_t size = 10007;  // 10 chunks of 1024, the last one odd
  Buffer grads = Buffer::from(context(), floats_of(seed, world().rank(), size));
  // In the Context's mapped staging: its copies back are queued, never waited for, and the
  // kernel below must still see its own inputs and the sums land.
  auto pending = mpi::allreduce_async(world(), grads, mpi::Reduction::Sum,
                                      {.chunk_elements = 1024, .context = &context()});
  // Work queued while the chunks travel: y = 2 x on another Buffer.
  gpgpu::ComputeKernel twice(context(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) readonly buffer X { float x[]; };
    layout(std430, binding = 1) writeonly buffer Y { float y[]; };
    void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] = 2.0 * x[i]; })");
  const auto x = gpgpu::test::random_floats(777);
  Buffer xb = Buffer::from(context(), x);
  Buffer yb = Buffer::from(context(), std::vector<float>(777, gpgpu::test::poison_float()));
  twice.run({{"x", xb}, {"y", yb}});
  while (!pending.test()) {
  }
  EXPECT_TRUE(pending.done());
  const auto y = yb.to_vector<float>();
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], 2 * x[i]) << "element " << i;
  const auto got = grads.to_vector<float>();
  std::vector<std::vector<float>> inputs;
  for (int r = 0; r < n; ++r) inputs.push_back(floats_of(seed, r, size));
  std::string first;
  EXPECT_EQ(count_off(
                got,
                [&](std::size_t i) {
                  double s = 0;
                  for (const auto& v : inputs) s += v[i];
                  return s;
                },
                [&](std::size_t i) {
                  double a = 0;
                  for (const auto& v : inputs) a += std::abs(v[i]);
                  return (n - 1) * eps32 * a;
                },
                first),
            0u)
      << first;
}

TEST(MpiCollectives, BroadcastAndGatherBuffers) {
  const auto seed = gpgpu::test::shared_seed();
  SCOPED_TRACE(testing::Message() << "shared seed " << seed);
  const int n = world().size(), me = world().rank(), root = n - 1;
  const auto truth = floats_of(seed, 99, 501);
  Buffer b = Buffer::from(
      context(), me == root ? truth : std::vector<float>(501, gpgpu::test::poison_float()));
  mpi::broadcast(world(), b, root);
  EXPECT_TRUE(gpgpu::test::same_float_bits(b.to_vector<float>(), truth));
  // Gather: parts of different odd lengths, concatenated in rank order on rank 0.
  const auto part = floats_of(seed, me, 3 + 2 * static_cast<std::size_t>(me));
  const auto all = mpi::gather<float>(world(), Buffer::from(context(), part), 0);
  if (me != 0) {
    EXPECT_TRUE(all.empty());
    return;
  }
  std::vector<float> want;
  for (int r = 0; r < n; ++r) {
    const auto p = floats_of(seed, r, 3 + 2 * static_cast<std::size_t>(r));
    want.insert(want.end(), p.begin(), p.end());
  }
  EXPECT_TRUE(gpgpu::test::same_float_bits(all, want));
}

TEST(MpiCollectives, EveryRankThrowsTheSameErrorForMismatchedArguments) {
  const int me = world().rank();
  // Buffers of different lengths: nobody hangs, nobody's data changes.
  const std::vector<float> mine(me == 0 ? 5 : 6, 1.5f);
  Buffer b = Buffer::from(context(), mine);
  const auto message = gpgpu::test::error_message_of([&] { mpi::allreduce(world(), b); });
  EXPECT_NE(message.find("the ranks passed different Buffer lengths: from 5 to 6"),
            std::string::npos)
      << message;
  EXPECT_EQ(b.to_vector<float>(), mine);
  // One rank's own mistake (a Mean of integers on rank 1 only would differ in the reduction;
  // an empty Buffer is a rank's own check): every rank learns it, naming the rank.
  Buffer good = Buffer::from(context(), std::vector<float>(4, 1.0f)), empty;
  const auto own = gpgpu::test::error_message_of(
      [&] { mpi::allreduce(world(), me == world().size() - 1 ? empty : good); });
  EXPECT_NE(own.find(fmt::format("rank {}: gpgpu::mpi::allreduce: the Buffer is empty",
                                 world().size() - 1)),
            std::string::npos)
      << own;
  Buffer ints = Buffer::from(context(), std::vector<std::int32_t>(3, 7));
  EXPECT_THROW(mpi::allreduce(world(), ints, mpi::Reduction::Mean), mpi::CollectiveError);
  EXPECT_THROW(mpi::broadcast(world(), good, world().size()), mpi::CollectiveError);
  // A Context named for the staging that did not make the Buffer (on the last rank only).
  gpgpu::Context other;
  Buffer foreign = Buffer::from(other, std::vector<float>(4, 2.0f));
  const auto wrong = gpgpu::test::error_message_of([&] {
    const bool last = me == world().size() - 1;
    mpi::allreduce(world(), last ? foreign : good, mpi::Reduction::Sum, {.context = &context()});
  });
  EXPECT_NE(wrong.find(fmt::format("rank {}: gpgpu::mpi::allreduce: the Buffer was not made from "
                                   "AllreduceOptions::context",
                                   world().size() - 1)),
            std::string::npos)
      << wrong;
  EXPECT_EQ(foreign.to_vector<float>(), std::vector<float>(4, 2.0f));
  EXPECT_EQ(good.to_vector<float>(), std::vector<float>(4, 1.0f));
}
