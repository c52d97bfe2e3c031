// gpgpu::mpi::HaloExchange under mpirun with 2 and 3 ranks: a random partition of random
// items, each rank holding its own items and a random halo of other ranks' items in a
// random local order (the scatter path) or with the halo numbered by owner (one contiguous
// upload), against the serial truth: after the exchange every local item holds its global
// value, bit for bit. Plus the constructor's agreed checks.
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/mpi/halo_exchange.hpp"
#include "mpi_test_support.hpp"
#include "test_support.hpp"

namespace mpi = gpgpu::mpi;
using gpgpu::Buffer;
using gpgpu::test::context;
using gpgpu::test::world;

namespace {

// How a rank numbers its items: own and halo slots shuffled together (the halo lands
// through the scatter kernel), own slots then the halo in random order, or own slots then
// the halo by owner (both land as one upload, placed by MPI datatypes).
enum class Layout { Interleaved, HaloShuffled, HaloByOwner };

// Every rank's share of `items` global items, made from the shared seed: an owner per item,
// and per rank a local order of its own items and a random ~30% of the others' (its halo).
struct Partition {
  std::vector<int> owner;                // per global item
  std::vector<std::vector<int>> locals;  // per rank: the global item of each local slot
  std::vector<std::size_t> owned;        // per rank: how many of its slots it owns
};

Partition make_partition(std::uint32_t seed, int ranks, std::size_t items, Layout layout) {
  std::mt19937 g(seed);
  Partition p;
  p.owner.resize(items);
  for (auto& o : p.owner) o = static_cast<int>(g() % static_cast<unsigned>(ranks));
  for (int r = 0; r < ranks; ++r) {
    std::vector<int> own, halo;
    for (std::size_t i = 0; i < items; ++i) {
      if (p.owner[i] == r)
        own.push_back(static_cast<int>(i));
      else if (g() % 10 < 3)
        halo.push_back(static_cast<int>(i));
    }
    std::shuffle(halo.begin(), halo.end(), g);
    if (layout == Layout::HaloByOwner) {
      std::stable_sort(halo.begin(), halo.end(),
                       [&](int a, int b) { return p.owner[a] < p.owner[b]; });
    }
    std::vector<int> local = own;
    local.insert(local.end(), halo.begin(), halo.end());
    if (layout == Layout::Interleaved) std::shuffle(local.begin(), local.end(), g);
    p.locals.push_back(local);
    p.owned.push_back(own.size());
  }
  return p;
}

// This rank's links: for each other rank, the slots it sends (the items that rank's halo
// holds of ours, in that rank's slot order) and the slots it receives into.
std::vector<mpi::HaloLink> links_of(const Partition& p, int me) {
  std::map<int, std::uint32_t> my_slot;
  for (std::size_t s = 0; s < p.locals[me].size(); ++s)
    my_slot[p.locals[me][s]] = static_cast<std::uint32_t>(s);
  std::vector<mpi::HaloLink> links;
  for (int r = 0; r < static_cast<int>(p.locals.size()); ++r) {
    if (r == me) continue;
    mpi::HaloLink l{r, {}, {}};
    for (int item : p.locals[r]) {
      if (p.owner[item] == me) l.send.push_back(my_slot.at(item));
    }
    for (std::size_t s = 0; s < p.locals[me].size(); ++s) {
      if (p.owner[p.locals[me][s]] == r) l.receive.push_back(static_cast<std::uint32_t>(s));
    }
    if (!l.send.empty() || !l.receive.empty()) links.push_back(l);
  }
  return links;
}

}  // namespace

TEST(HaloExchange, RandomPartitionMatchesTheSerialTruth) {
  const auto seed = gpgpu::test::shared_seed();
  SCOPED_TRACE(testing::Message() << "shared seed " << seed);
  const int me = world().rank(), ranks = world().size();
  for (Layout layout : {Layout::Interleaved, Layout::HaloShuffled, Layout::HaloByOwner}) {
    for (std::size_t width : {std::size_t{1}, std::size_t{3}, std::size_t{4}}) {
      const std::size_t items = 157 + width;  // odd sizes
      const Partition p =
          make_partition(seed + static_cast<std::uint32_t>(width), ranks, items, layout);
      const auto truth =
          gpgpu::test::floats_of(seed, 1000 + static_cast<int>(width), items * width);
      const auto& local = p.locals[me];
      std::vector<float> start(local.size() * width, gpgpu::test::poison_float());
      for (std::size_t s = 0; s < local.size(); ++s) {
        if (p.owner[local[s]] != me) continue;  // halo slots stay poisoned
        for (std::size_t c = 0; c < width; ++c) start[s * width + c] = truth[local[s] * width + c];
      }
      Buffer values = Buffer::from(context(), start);
      mpi::HaloExchange halo(world(), context(), gpgpu::ElementType::Float32, width, local.size(),
                             links_of(p, me));
      EXPECT_EQ(halo.contiguous_receive(), layout != Layout::Interleaved || ranks == 1);
      halo.exchange(values);
      halo.exchange(values);  // persistent requests: a second round gives the same
      const auto wrong_against = [&](const std::vector<float>& expected) {
        const auto got = values.to_vector<float>();
        std::size_t wrong = 0;
        for (std::size_t s = 0; s < local.size(); ++s) {
          for (std::size_t c = 0; c < width; ++c)
            wrong += std::bit_cast<std::uint32_t>(got[s * width + c]) !=
                     std::bit_cast<std::uint32_t>(expected[local[s] * width + c]);
        }
        return wrong;
      };
      EXPECT_EQ(wrong_against(truth), 0u)
          << "width " << width << ", layout " << static_cast<int>(layout);
      // New values in the owned slots: the next rounds carry them, not the last round's
      // (the host copies are reused).
      for (int round = 0; round < 2; ++round) {
        const auto next = gpgpu::test::floats_of(seed, 2000 + 10 * round + static_cast<int>(width),
                                                 items * width);
        auto mine = values.to_vector<float>();
        for (std::size_t s = 0; s < local.size(); ++s) {
          if (p.owner[local[s]] != me) continue;
          for (std::size_t c = 0; c < width; ++c) mine[s * width + c] = next[local[s] * width + c];
        }
        values.upload(std::span<const float>(mine));
        halo.exchange(values);
        EXPECT_EQ(wrong_against(next), 0u)
            << "round " << round << ", width " << width << ", layout " << static_cast<int>(layout);
      }
    }
  }
}

TEST(HaloExchange, IntegerItemsAndASplitExchange) {
  const auto seed = gpgpu::test::shared_seed();
  SCOPED_TRACE(testing::Message() << "shared seed " << seed);
  const int me = world().rank();
  const Partition p = make_partition(seed, world().size(), 91, Layout::Interleaved);
  const auto& local = p.locals[me];
  std::vector<std::int32_t> start(local.size() * 2, gpgpu::test::poison_int);
  for (std::size_t s = 0; s < local.size(); ++s) {
    if (p.owner[local[s]] == me) start[2 * s] = local[s], start[2 * s + 1] = -local[s];
  }
  Buffer values = Buffer::from(context(), start);
  mpi::HaloExchange halo(world(), context(), gpgpu::ElementType::Int32, 2, local.size(),
                         links_of(p, me));
  halo.start(values);
  halo.finish(values);
  const auto got = values.to_vector<std::int32_t>();
  for (std::size_t s = 0; s < local.size(); ++s) {
    EXPECT_EQ(got[2 * s], local[s]) << "slot " << s;
    EXPECT_EQ(got[2 * s + 1], -local[s]) << "slot " << s;
  }
  // A Buffer of the wrong length is this rank's own mistake: it throws here, before sending.
  Buffer wrong(context(), gpgpu::ElementType::Int32, local.size() * 2 + 1);
  EXPECT_THROW(halo.start(wrong), gpgpu::ArgumentError);
}

TEST(HaloExchange, EveryRankThrowsForOneRanksBadLinks) {
  if (world().size() < 2) GTEST_SKIP() << "needs two ranks";
  const int me = world().rank(), last = world().size() - 1;
  // An index past the items, on the last rank only.
  std::vector<mpi::HaloLink> links;
  if (me == 0) links.push_back({last, {0}, {1}});
  if (me == last) links.push_back({0, {me == last ? 9u : 0u}, {1}});
  const auto message = gpgpu::test::error_message_of(
      [&] { mpi::HaloExchange(world(), context(), gpgpu::ElementType::Float32, 1, 4, links); });
  EXPECT_NE(message.find(fmt::format("rank {}: gpgpu::mpi::HaloExchange: link to rank 0: item 9 "
                                     "is past the 4 items",
                                     last)),
            std::string::npos)
      << message;
  // Counts that do not match: rank 0 sends two items, the last rank expects one.
  links.clear();
  if (me == 0) links.push_back({last, {0, 1}, {2}});
  if (me == last) links.push_back({0, {0}, {2}});
  EXPECT_THROW(mpi::HaloExchange(world(), context(), gpgpu::ElementType::Float32, 1, 4, links),
               mpi::CollectiveError);
}
