// gpgpu/earth/mpi.hpp — the shallow-water model across MPI ranks: gpgpu::earth's Team
// (team.hpp) made of gpgpu::mpi (CMake target gpgpu::earth_mpi, built when MPI is found).
//
//   gpgpu::mpi::Session session(argc, argv);
//   gpgpu::mpi::Communicator world;
//   gpgpu::earth::MpiTeam team(world);
//   gpgpu::Context ctx({.device = team.device("auto")});       // a GPU per rank
//   gpgpu::earth::Grid grid = team.share_grid([] { return gpgpu::earth::build_grid({.level = 8});
//   }); gpgpu::earth::Model model(ctx, grid, gpgpu::earth::make_case(5), {}, team); model.run(15 *
//   86400.0); gpgpu::earth::Fields f = model.fields();                    // every cell, on rank 0
//
// The grid. Rank 0 builds it (or loads it from the disk cache) and broadcasts it as its
// encoded bytes (broadcast_grid: encode_grid, 48 bytes a cell: 126 MB at level 9), from which
// every other rank rebuilds neighbours and control volumes as reading a cached grid does
// (~1% of a build): every rank then holds the same bits, which the bit-for-bit equality of
// an N-rank run with one process rests on, and the build — tens of seconds at level 8-9 on
// a CPU, slower still when N processes build at once on one node — runs once.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/earth/team.hpp"
#include "gpgpu/mpi/communicator.hpp"

namespace gpgpu::earth {

// The Team of the ranks of an MPI communicator: the grid shared from rank 0, sums and
// gathers over MPI, halo exchanges through host memory (the manual at the top of this header).
class MpiTeam final : public Team {
 public:
  explicit MpiTeam(const mpi::Communicator& comm);  // the communicator must outlive it
  int rank() const override;
  int size() const override;
  // gpgpu::mpi::device_for_rank: the GPU of this rank's node-local rank, unless asked.
  std::string device(const std::string& requested) override;
  // Rank 0 builds; a build that throws there throws a CollectiveError on every rank.
  Grid share_grid(const std::function<Grid()>& build) override;
  void sum(std::span<double> values) override;
  std::string first_message(const std::string& message) override;
  std::vector<float> gather(std::span<const float> part) override;
  std::vector<std::string> gather_text(const std::string& text) override;
  // A gpgpu::mpi::HaloExchange over the domain's links (vec4 of float32 per local cell).
  std::unique_ptr<Halo> halo(const Context& context, const Subdomain& domain) override;

 private:
  const mpi::Communicator* comm_;
};

// Rank `root`'s grid into `grid` on every rank (its encode_grid bytes broadcast, decoded on
// the others). Collective.
void broadcast_grid(const mpi::Communicator& comm, Grid& grid, int root = 0);

}  // namespace gpgpu::earth
