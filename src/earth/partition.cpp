// The grid split across processes (see gpgpu/earth/partition.hpp).
#include "gpgpu/earth/partition.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::earth {

namespace {

using Cells = std::vector<std::int32_t>;

int owner_of(const std::vector<std::size_t>& bounds, std::int32_t cell) {
  const auto at = std::upper_bound(bounds.begin(), bounds.end(), static_cast<std::size_t>(cell));
  return static_cast<int>(at - bounds.begin()) - 1;
}

void sort_unique(Cells& c) {
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
}

// Rank r's halo: the cells it does not own one and two neighbour steps from its range, each
// sorted by global index, which is also by owner (ranges ascend with the rank).
struct Rings {
  Cells first, second;
};

Rings rings_of(const Grid& g, const std::vector<std::size_t>& bounds, int r) {
  const auto lo = static_cast<std::int32_t>(bounds[r]),
             hi = static_cast<std::int32_t>(bounds[r + 1]);
  auto foreign = [&](std::int32_t c) { return c < lo || c >= hi; };
  Rings rings;
  for (std::int32_t i = lo; i < hi; ++i) {
    for (int k = 0; k < g.degree[i]; ++k) {
      if (foreign(g.neighbours[i][k])) rings.first.push_back(g.neighbours[i][k]);
    }
  }
  sort_unique(rings.first);
  for (std::int32_t c : rings.first) {
    for (int k = 0; k < g.degree[c]; ++k) {
      const std::int32_t nb = g.neighbours[c][k];
      if (foreign(nb) && !std::binary_search(rings.first.begin(), rings.first.end(), nb))
        rings.second.push_back(nb);
    }
  }
  sort_unique(rings.second);
  return rings;
}

// The cells of `ring` that rank `owner` owns, as local indices.
Cells local_part(const Cells& ring, const std::vector<std::size_t>& bounds, int owner,
                 const std::vector<std::int32_t>& local) {
  Cells out;
  for (std::int32_t c : ring) {
    if (owner_of(bounds, c) == owner) out.push_back(local[c]);
  }
  return out;
}

Cells concatenated(Cells a, const Cells& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Own cells, interior first: those whose neighbours are all own, then the rest.
void order_own_cells(const Grid& g, Subdomain& d) {
  const auto lo = static_cast<std::int32_t>(d.first), hi = static_cast<std::int32_t>(d.last);
  Cells boundary;
  for (std::int32_t i = lo; i < hi; ++i) {
    bool inside = true;
    for (int k = 0; k < g.degree[i]; ++k)
      inside = inside && g.neighbours[i][k] >= lo && g.neighbours[i][k] < hi;
    (inside ? d.cells : boundary).push_back(i);
  }
  d.interior = d.cells.size();
  d.cells.insert(d.cells.end(), boundary.begin(), boundary.end());
  d.owned = d.cells.size();
}

}  // namespace

std::vector<std::size_t> partition_bounds(std::size_t cells, int ranks) {
  if (ranks < 1 || static_cast<std::size_t>(ranks) > cells) {
    throw ArgumentError(
        fmt::format("earth partition: need between 1 and {} ranks (one cell each at least); got {}",
                    cells, ranks));
  }
  std::vector<std::size_t> bounds(static_cast<std::size_t>(ranks) + 1);
  const auto r = static_cast<std::size_t>(ranks);
  for (std::size_t i = 0; i <= r; ++i) bounds[i] = i * (cells / r) + std::min(i, cells % r);
  return bounds;
}

Subdomain make_subdomain(const Grid& g, int ranks, int rank) {
  const auto bounds = partition_bounds(g.cell_count(), ranks);
  if (rank < 0 || rank >= ranks) {
    throw ArgumentError(fmt::format("earth partition: rank {} is outside 0..{}", rank, ranks - 1));
  }
  Subdomain d;
  d.rank = rank;
  d.ranks = ranks;
  d.first = bounds[rank];
  d.last = bounds[rank + 1];
  order_own_cells(g, d);
  const Rings mine = rings_of(g, bounds, rank);
  d.cells.insert(d.cells.end(), mine.first.begin(), mine.first.end());
  d.inner = d.cells.size();
  d.cells.insert(d.cells.end(), mine.second.begin(), mine.second.end());
  std::vector<std::int32_t> local(g.cell_count(), -1);
  for (std::size_t l = 0; l < d.cells.size(); ++l) local[d.cells[l]] = static_cast<std::int32_t>(l);
  std::vector<int> neighbours;
  for (std::size_t l = d.owned; l < d.cells.size(); ++l)
    neighbours.push_back(owner_of(bounds, d.cells[l]));
  std::sort(neighbours.begin(), neighbours.end());
  neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
  for (int r : neighbours) {
    // What r expects from us is what we expect from it, seen from r's side.
    const Rings theirs = rings_of(g, bounds, r);
    d.links.push_back({r,
                       concatenated(local_part(theirs.first, bounds, rank, local),
                                    local_part(theirs.second, bounds, rank, local)),
                       concatenated(local_part(mine.first, bounds, r, local),
                                    local_part(mine.second, bounds, r, local))});
  }
  return d;
}

}  // namespace gpgpu::earth
