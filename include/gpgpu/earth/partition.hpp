// gpgpu/earth/partition.hpp — the grid split across processes: contiguous ranges of the
// space-filling-curve order, each with the halo rings the model's stencils need.
//
//   auto bounds = gpgpu::earth::partition_bounds(grid.cell_count(), 4);  // 5 cell indices
//   gpgpu::earth::Subdomain d = gpgpu::earth::make_subdomain(grid, 4, rank);
//   d.cells[l];            // the global cell of local cell l
//   d.links[0].send;       // local cells to send to d.links[0].rank at every exchange
//
// Ranges. The grid's cells are stored along a space-filling curve (Morton order, grid.hpp),
// so a contiguous range of cells is a compact patch of the sphere whose boundary is short.
// Rank r owns cells [bounds[r], bounds[r+1]); the ranges differ in size by at most one cell
// (every cell costs the same).
//
// Halo. A cell's tendency reads its neighbours' state (ring 1), and the continuity
// correction of the update reads the neighbours' tendencies. Each rank therefore also
// computes the tendencies of ring 1 (the cells next to its own), from the state of ring 2
// (the cells next to ring 1): one exchange of ring 1 and ring 2 per Runge-Kutta stage
// instead of two exchanges (state, then tendencies), which halves the messages a step sends.
// The tendencies a rank computes for ring 1 are bit for bit the owner's: the same kernel on
// the same values.
//
// Local numbering (what the model's device tables index):
//   [0, interior)      own cells whose neighbours are all own: their tendencies need no halo,
//                      so they are computed while the halo is in flight
//   [interior, owned)  own cells next to another rank's
//   [owned, inner)     ring 1, sorted by owner then global index
//   [inner, size())    ring 2, sorted the same way
// Own cells keep the curve order within each part. What a rank receives from rank r is its
// ring-1 cells of r followed by its ring-2 cells of r (two runs of local cells); all
// receives together fill [owned, size()) exactly, so a halo arrives as one contiguous
// upload (gpgpu::mpi::HaloExchange places each link's two runs with an MPI datatype).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpgpu/earth/grid.hpp"

namespace gpgpu::earth {

// What one rank exchanges with one neighbouring rank (local cell indices, in the order the
// other side expects): `send` lists own cells, `receive` halo cells.
struct SubdomainLink {
  int rank = -1;
  std::vector<std::int32_t> send, receive;
};

struct Subdomain {
  int rank = 0, ranks = 1;
  std::size_t first = 0, last = 0;  // the global cells [first, last) this rank owns
  std::vector<std::int32_t> cells;  // the global cell of every local cell
  std::size_t interior = 0, owned = 0, inner = 0;
  std::vector<SubdomainLink> links;  // one per neighbouring rank, by rank

  std::size_t size() const noexcept { return cells.size(); }
  std::size_t halo() const noexcept { return cells.size() - owned; }
};

// ranks + 1 cell indices: rank r owns [bounds[r], bounds[r + 1]). Throws ArgumentError unless
// 1 <= ranks <= cells.
std::vector<std::size_t> partition_bounds(std::size_t cells, int ranks);

// Rank `rank`'s part of `grid` split `ranks` ways. One rank gets every cell, in grid order,
// with no halo. Throws ArgumentError for a rank outside 0..ranks-1 or too many ranks.
Subdomain make_subdomain(const Grid& grid, int ranks, int rank);

}  // namespace gpgpu::earth
