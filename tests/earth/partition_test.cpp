// The grid split across ranks (gpgpu/earth/partition.hpp), checked against an independent
// breadth-first search on the whole grid: every rank's own cells, its two halo rings, their
// local order, and the links (what one rank sends is what the other expects, in order), for
// halos of 2, 8 and 10 rings.
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "earth_test_fields.hpp"
#include "gpgpu/earth/partition.hpp"
#include "gpgpu/error.hpp"

namespace ge = gpgpu::earth;
using gpgpu::earth::test::grid_at;

namespace {

using Cells = std::vector<std::int32_t>;

// The cells at exactly `distance` neighbour steps from [lo, hi), ascending.
Cells at_distance(const ge::Grid& g, std::size_t lo, std::size_t hi, int distance) {
  std::map<std::int32_t, int> seen;
  std::vector<std::int32_t> front;
  for (std::size_t i = lo; i < hi; ++i) {
    seen[static_cast<std::int32_t>(i)] = 0;
    front.push_back(static_cast<std::int32_t>(i));
  }
  for (int d = 1; d <= distance; ++d) {
    std::vector<std::int32_t> next;
    for (std::int32_t c : front) {
      for (int k = 0; k < g.degree[c]; ++k) {
        if (seen.emplace(g.neighbours[c][k], d).second) next.push_back(g.neighbours[c][k]);
      }
    }
    front = next;
  }
  Cells out;
  for (const auto& [c, d] : seen) {
    if (d == distance) out.push_back(c);
  }
  return out;  // ascending
}

// Each cell of [lo, hi): the neighbour steps to the nearest cell outside (a large number
// when every cell is inside).
std::vector<int> steps_to_others(const ge::Grid& g, std::size_t lo, std::size_t hi) {
  std::vector<int> steps(hi - lo, 1 << 30);
  std::vector<std::int32_t> front;
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    if (i < lo || i >= hi) front.push_back(static_cast<std::int32_t>(i));
  }
  for (int d = 1; !front.empty(); ++d) {
    std::vector<std::int32_t> next;
    for (std::int32_t c : front) {
      for (int k = 0; k < g.degree[c]; ++k) {
        const auto nb = static_cast<std::size_t>(g.neighbours[c][k]);
        if (nb >= lo && nb < hi && steps[nb - lo] > d) {
          steps[nb - lo] = d;
          next.push_back(static_cast<std::int32_t>(nb));
        }
      }
    }
    front = std::move(next);
  }
  return steps;
}

Cells slice(const Cells& c, std::size_t from, std::size_t to) {
  return {c.begin() + static_cast<std::ptrdiff_t>(from),
          c.begin() + static_cast<std::ptrdiff_t>(to)};
}

Cells global_of(const ge::Subdomain& d, const Cells& local) {
  Cells out;
  for (std::int32_t l : local) out.push_back(d.cells[l]);
  return out;
}

}  // namespace

TEST(Partition, BoundsAreContiguousAndBalanced) {
  for (std::size_t cells : {12u, 642u, 2563u}) {
    for (int ranks : {1, 2, 3, 7, 12}) {
      const auto b = ge::partition_bounds(cells, ranks);
      ASSERT_EQ(b.size(), static_cast<std::size_t>(ranks) + 1);
      EXPECT_EQ(b.front(), 0u);
      EXPECT_EQ(b.back(), cells);
      for (int r = 0; r < ranks; ++r) {
        const std::size_t size = b[r + 1] - b[r];
        EXPECT_TRUE(size == cells / ranks || size == cells / ranks + 1) << cells << "/" << ranks;
      }
    }
  }
  EXPECT_THROW(ge::partition_bounds(12, 0), gpgpu::ArgumentError);
  EXPECT_THROW(ge::partition_bounds(12, 13), gpgpu::ArgumentError);
  EXPECT_THROW(ge::make_subdomain(grid_at(2), 3, 3), gpgpu::ArgumentError);
  EXPECT_THROW(ge::make_subdomain(grid_at(2), 3, 0, 0), gpgpu::ArgumentError);
}

// A deep halo's first k rings are the halo of a subdomain k rings deep, cell for cell (the
// model's choice of halo depth reads the shallower halos off the deepest one).
TEST(Partition, ADeepHaloHoldsTheShallowerOnes) {
  const auto& g = grid_at(4);
  for (int ranks : {2, 3}) {
    for (int r = 0; r < ranks; ++r) {
      const auto deep = ge::make_subdomain(g, ranks, r, 32);
      for (int k : {2, 8, 16}) {
        const auto shallow = ge::make_subdomain(g, ranks, r, k);
        ASSERT_EQ(deep.within(k) - deep.owned, shallow.halo())
            << ranks << " ranks, rank " << r << ", " << k << " rings";
        std::vector<std::int32_t> a(deep.cells.begin(), deep.cells.begin() + deep.within(k));
        std::vector<std::int32_t> b = shallow.cells;
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        EXPECT_EQ(a, b) << ranks << " ranks, rank " << r << ", " << k << " rings";
      }
    }
  }
}

TEST(Partition, SubdomainsHoldTheirCellsAndTheirHaloRings) {
  for (const auto& [level, depth] :
       {std::pair{2, 2}, std::pair{3, 2}, std::pair{3, 8}, std::pair{4, 10}}) {
    const auto& g = grid_at(level);
    for (int ranks : {1, 2, 3, 7}) {
      SCOPED_TRACE(testing::Message()
                   << "level " << level << ", depth " << depth << ", " << ranks << " ranks");
      const auto bounds = ge::partition_bounds(g.cell_count(), ranks);
      std::vector<ge::Subdomain> d;
      for (int r = 0; r < ranks; ++r) d.push_back(ge::make_subdomain(g, ranks, r, depth));
      for (int r = 0; r < ranks; ++r) {
        const auto& s = d[r];
        const std::size_t lo = bounds[r], hi = bounds[r + 1];
        auto own = [&](std::int32_t c) {
          return c >= static_cast<std::int32_t>(lo) && c < static_cast<std::int32_t>(hi);
        };
        // Own cells: interior (all neighbours own) then boundary, each in grid order.
        auto mine = slice(s.cells, 0, s.owned);
        std::sort(mine.begin(), mine.end());
        ASSERT_EQ(mine.size(), hi - lo);
        for (std::size_t i = 0; i < mine.size(); ++i)
          ASSERT_EQ(mine[i], static_cast<std::int32_t>(lo + i));
        for (std::size_t l = 0; l < s.owned; ++l) {
          bool inside = true;
          for (int k = 0; k < g.degree[s.cells[l]]; ++k)
            inside = inside && own(g.neighbours[s.cells[l]][k]);
          EXPECT_EQ(inside, l < s.interior()) << "local cell " << l;
        }
        // Deepest first: [0, inner(k)) are the own cells more than k steps from another
        // rank's, each distance band in grid order.
        const auto steps = steps_to_others(g, lo, hi);
        ASSERT_EQ(s.inner_end.size(), static_cast<std::size_t>(ge::Subdomain::inner_depth) + 1);
        EXPECT_EQ(s.inner(0), s.owned);
        for (int k = 0; k <= ge::Subdomain::inner_depth; ++k) {
          for (std::size_t l = 0; l < s.owned; ++l) {
            ASSERT_EQ(steps[s.cells[l] - lo] > k, l < s.inner(k))
                << "local cell " << l << ", k " << k;
          }
          const auto band =
              slice(s.cells, k < ge::Subdomain::inner_depth ? s.inner(k + 1) : 0, s.inner(k));
          EXPECT_TRUE(std::is_sorted(band.begin(), band.end())) << "band " << k;
        }
        // The rings, as the search finds them.
        ASSERT_EQ(s.ring_end.size(), static_cast<std::size_t>(depth) + 1);
        EXPECT_EQ(s.ring_end.front(), s.owned);
        EXPECT_EQ(s.ring_end.back(), s.size());
        for (int k = 1; k <= depth; ++k)
          EXPECT_EQ(slice(s.cells, s.within(k - 1), s.within(k)), at_distance(g, lo, hi, k))
              << "ring " << k;
        // The receives of all links together fill [owned, size) exactly, each cell once, and
        // each link receives the halo cells its rank owns.
        Cells received;
        for (const auto& link : s.links) {
          received.insert(received.end(), link.receive.begin(), link.receive.end());
          for (std::int32_t l : link.receive) {
            const auto cell = static_cast<std::size_t>(s.cells[l]);
            EXPECT_TRUE(cell >= bounds[link.rank] && cell < bounds[link.rank + 1]) << l;
          }
        }
        std::sort(received.begin(), received.end());
        ASSERT_EQ(received.size(), s.halo());
        for (std::size_t i = 0; i < received.size(); ++i)
          EXPECT_EQ(received[i], static_cast<std::int32_t>(s.owned + i));
        // What r sends to each neighbour is what that neighbour receives from r, in order.
        for (const auto& link : s.links) {
          const auto& other = d[link.rank];
          const auto back = std::find_if(other.links.begin(), other.links.end(),
                                         [&](const ge::SubdomainLink& l) { return l.rank == r; });
          ASSERT_NE(back, other.links.end()) << "rank " << link.rank << " has no link to " << r;
          EXPECT_EQ(global_of(s, link.send), global_of(other, back->receive));
          for (std::int32_t l : link.send) EXPECT_LT(static_cast<std::size_t>(l), s.owned);
        }
      }
    }
  }
}
