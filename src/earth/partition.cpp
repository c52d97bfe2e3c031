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

// Rank r's halo: the cells it does not own 1, 2, ..., depth neighbour steps from its range,
// each ring sorted by global index, which is also by owner (ranges ascend with the rank).
std::vector<Cells> rings_of(const Grid& g, const std::vector<std::size_t>& bounds, int r,
                            int depth) {
  const auto lo = static_cast<std::int32_t>(bounds[r]),
             hi = static_cast<std::int32_t>(bounds[r + 1]);
  auto foreign = [&](std::int32_t c) { return c < lo || c >= hi; };
  auto in = [](const Cells& ring, std::int32_t c) {
    return std::binary_search(ring.begin(), ring.end(), c);
  };
  std::vector<Cells> rings(static_cast<std::size_t>(depth));
  Cells own;  // ring 1 is reached from the own cells
  for (std::int32_t i = lo; i < hi; ++i) own.push_back(i);
  for (std::size_t k = 0; k < rings.size(); ++k) {
    // A neighbour of ring k-1 lies in ring k-2, k-1 or k.
    for (std::int32_t c : k == 0 ? own : rings[k - 1]) {
      for (int j = 0; j < g.degree[c]; ++j) {
        const std::int32_t nb = g.neighbours[c][j];
        if (!foreign(nb) || (k >= 1 && in(rings[k - 1], nb)) || (k >= 2 && in(rings[k - 2], nb)))
          continue;
        rings[k].push_back(nb);
      }
    }
    sort_unique(rings[k]);
  }
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

void append(Cells& to, const Cells& more) {
  to.insert(to.end(), more.begin(), more.end());
}

// Each own cell's neighbour steps to the nearest other rank's cell, found by a search
// inward from the cells next to one; `deep` where that is deep or more (and for every cell
// of a rank with no neighbours).
std::vector<int> steps_to_others(const Grid& g, const Subdomain& d, int deep) {
  const auto lo = static_cast<std::int32_t>(d.first), hi = static_cast<std::int32_t>(d.last);
  auto own = [&](std::int32_t c) { return c >= lo && c < hi; };
  std::vector<int> steps(d.last - d.first, deep);
  Cells front;
  for (std::int32_t i = lo; i < hi; ++i) {
    for (int k = 0; k < g.degree[i]; ++k) {
      if (!own(g.neighbours[i][k])) {
        steps[i - lo] = 1;
        front.push_back(i);
        break;
      }
    }
  }
  for (int step = 2; step < deep && !front.empty(); ++step) {
    Cells next;
    for (std::int32_t c : front) {
      for (int k = 0; k < g.degree[c]; ++k) {
        const std::int32_t nb = g.neighbours[c][k];
        if (own(nb) && steps[nb - lo] == deep) steps[nb - lo] = step, next.push_back(nb);
      }
    }
    front = std::move(next);
  }
  return steps;
}

// Own cells deepest first (partition.hpp): those more than inner_depth steps from another
// rank's in curve order, then one distance band after another, each in curve order.
void order_own_cells(const Grid& g, Subdomain& d) {
  constexpr int deep = Subdomain::inner_depth + 1;  // "more than inner_depth steps"
  const auto steps = steps_to_others(g, d, deep);
  std::vector<Cells> band(deep + 1);
  for (std::size_t i = d.first; i < d.last; ++i)
    band[steps[i - d.first]].push_back(static_cast<std::int32_t>(i));
  d.inner_end.assign(deep, 0);
  for (int k = deep; k >= 1; --k) {
    append(d.cells, band[k]);
    d.inner_end[k - 1] = d.cells.size();  // every cell so far is more than k - 1 steps in
  }
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

Subdomain make_subdomain(const Grid& g, int ranks, int rank, int depth) {
  const auto bounds = partition_bounds(g.cell_count(), ranks);
  if (rank < 0 || rank >= ranks) {
    throw ArgumentError(fmt::format("earth partition: rank {} is outside 0..{}", rank, ranks - 1));
  }
  if (depth < 1 || depth > 160) {
    throw ArgumentError(
        fmt::format("earth partition: halo depth must be in 1..160; got {}", depth));
  }
  Subdomain d;
  d.rank = rank;
  d.ranks = ranks;
  d.depth = depth;
  d.first = bounds[rank];
  d.last = bounds[rank + 1];
  order_own_cells(g, d);
  const auto mine = rings_of(g, bounds, rank, depth);
  d.ring_end.push_back(d.owned);
  for (const Cells& ring : mine) {
    d.cells.insert(d.cells.end(), ring.begin(), ring.end());
    d.ring_end.push_back(d.cells.size());
  }
  std::vector<std::int32_t> local(g.cell_count(), -1);
  for (std::size_t l = 0; l < d.cells.size(); ++l) local[d.cells[l]] = static_cast<std::int32_t>(l);
  std::vector<int> neighbours;
  for (std::size_t l = d.owned; l < d.cells.size(); ++l)
    neighbours.push_back(owner_of(bounds, d.cells[l]));
  std::sort(neighbours.begin(), neighbours.end());
  neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
  for (int r : neighbours) {
    // What r expects from us is what we expect from it, seen from r's side.
    const auto theirs = rings_of(g, bounds, r, depth);
    SubdomainLink link{r, {}, {}};
    for (int k = 0; k < depth; ++k) {
      append(link.send, local_part(theirs[k], bounds, rank, local));
      append(link.receive, local_part(mine[k], bounds, r, local));
    }
    d.links.push_back(std::move(link));
  }
  return d;
}

}  // namespace gpgpu::earth
