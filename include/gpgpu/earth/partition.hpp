// gpgpu/earth/partition.hpp — the grid split across processes: contiguous ranges of the
// space-filling-curve order, each with the halo rings the model's stencils need.
//
//   auto bounds = gpgpu::earth::partition_bounds(grid.cell_count(), 4);  // 5 cell indices
//   gpgpu::earth::Subdomain d = gpgpu::earth::make_subdomain(grid, 4, rank, 8);  // 8 rings
//   d.cells[l];            // the global cell of local cell l
//   d.links[0].send;       // local cells to send to d.links[0].rank at every exchange
//
// Ranges. The grid's cells are stored along a space-filling curve (Morton order, grid.hpp),
// so a contiguous range of cells is a compact patch of the sphere whose boundary is short.
// Rank r owns cells [bounds[r], bounds[r+1]); the ranges differ in size by at most one cell
// (every cell costs the same).
//
// Halo. A cell's tendency reads its neighbours' state, and the continuity correction of the
// update reads the neighbours' tendencies: each Runge-Kutta stage needs two rings of cells
// around the ones it updates. A subdomain carries `depth` rings. With depth 2 a rank swaps
// its halo before every stage (4 exchanges a step). With depth 8 it swaps once a step and
// computes the stages redundantly on the rings that stay valid (stage s computes the
// tendencies of rings up to 7 - 2s and updates up to 6 - 2s): the same bytes in a quarter
// of the messages, for a few rings of extra work. Either way the values a rank computes for
// a ring cell are bit for bit its owner's: the same kernel on the same values.
//
// Local numbering (what the model's device tables index):
//   [0, inner(k))                  own cells more than k neighbour steps from every other
//                                  rank's cell (k = 0..inner_depth): what a step can compute
//                                  from the own cells alone while the halo travels
//   [0, interior())                = [0, inner(1)): own cells whose neighbours are all own
//   [interior(), owned)            own cells next to another rank's
//   [ring_end[k-1], ring_end[k])   ring k (k = 1..depth): the cells k neighbour steps from
//                                  the own ones, by owner then global index
// ring_end[0] = owned, ring_end[depth] = size(). Own cells come deepest first: those more
// than inner_depth steps inside in curve order, then one distance at a time down to the
// cells next to another rank's, each distance in curve order (only a band along the
// boundary leaves the curve order). One process owns every cell: all of them are inner. What a rank
// receives from rank r is its ring-1 cells of r, then its ring-2 cells of r, and so on (one run of
// local cells per ring); all receives together fill [owned, size()) exactly, so a halo arrives as
// one contiguous upload (gpgpu::mpi::HaloExchange places each link's runs with an MPI datatype).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpgpu/earth/grid.hpp"

namespace gpgpu::earth {

// What one rank exchanges with one neighbouring rank (local cell indices, in the order the
// other side expects): `send` lists own cells, `receive` halo cells.
struct SubdomainLink {
  int rank = -1;                            // the other rank
  std::vector<std::int32_t> send, receive;  // (above)
};

// One rank's part of the grid: its own cells, the rings of halo cells around them, and
// what it exchanges with each neighbouring rank (the manual at the top of this header).
struct Subdomain {
  static constexpr int inner_depth = 20;  // two steps' rings with hyperdiffusion
  int rank = 0, ranks = 1, depth = 2;  // this rank, of `ranks`, with halo rings `depth` deep
  std::size_t first = 0, last = 0;  // the global cells [first, last) this rank owns
  std::vector<std::int32_t> cells;  // the global cell of every local cell
  std::size_t owned = 0;               // local cells [0, owned) are this rank's own
  std::vector<std::size_t> ring_end;   // depth + 1 local indices (see above)
  std::vector<std::size_t> inner_end;  // inner_depth + 1 local indices (see above)
  std::vector<SubdomainLink> links;    // one per neighbouring rank, by rank

  std::size_t size() const noexcept { return cells.size(); }          // local cells
  std::size_t halo() const noexcept { return cells.size() - owned; }  // halo cells
  // The local cells [0, within(k)) are the own ones and the first k rings (k <= depth).
  std::size_t within(int rings) const { return ring_end.at(static_cast<std::size_t>(rings)); }
  // The local cells [0, inner(k)) are the own ones more than k steps from another rank's
  // (k <= inner_depth).
  std::size_t inner(int steps) const { return inner_end.at(static_cast<std::size_t>(steps)); }
  // [0, interior()): own cells whose neighbours are all own.
  std::size_t interior() const { return inner(1); }
};

// ranks + 1 cell indices: rank r owns [bounds[r], bounds[r + 1]). Throws ArgumentError unless
// 1 <= ranks <= cells.
std::vector<std::size_t> partition_bounds(std::size_t cells, int ranks);

// Rank `rank`'s part of `grid` split `ranks` ways, with `depth` halo rings. One rank gets
// every cell, in grid order, with empty rings. Throws ArgumentError for a rank outside
// 0..ranks-1, too many ranks, or a depth outside 1..160.
Subdomain make_subdomain(const Grid& grid, int ranks, int rank, int depth = 2);

}  // namespace gpgpu::earth
