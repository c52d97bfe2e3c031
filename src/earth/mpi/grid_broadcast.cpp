// broadcast_grid: every member of rank 0's Grid to all ranks (see gpgpu/earth/mpi.hpp).
#include <cstddef>

#include "gpgpu/earth/mpi.hpp"
#include "gpgpu/mpi/collectives.hpp"

namespace gpgpu::earth {

// The broadcast below names every member; a member added to Grid must be added there too.
static_assert(offsetof(Grid, centres) == offsetof(Grid, options) + sizeof(GridOptions) &&
                  sizeof(Grid) == offsetof(Grid, centres) + 11 * sizeof(std::vector<int>),
              "Grid has a member broadcast_grid does not send: add it there");

void broadcast_grid(const mpi::Communicator& comm, Grid& g, int root) {
  std::vector<GridOptions> options{g.options};
  std::vector<int> level{g.level};
  mpi::broadcast(comm, options, root);
  mpi::broadcast(comm, level, root);
  g.options = options.at(0);
  g.level = level.at(0);
  mpi::broadcast(comm, g.centres, root);
  mpi::broadcast(comm, g.degree, root);
  mpi::broadcast(comm, g.neighbours, root);
  mpi::broadcast(comm, g.triangles, root);
  mpi::broadcast(comm, g.cell_triangles, root);
  mpi::broadcast(comm, g.corners, root);
  mpi::broadcast(comm, g.corner_weights, root);
  mpi::broadcast(comm, g.areas, root);
  mpi::broadcast(comm, g.edge_lengths, root);
  mpi::broadcast(comm, g.edge_normals, root);
  mpi::broadcast(comm, g.neighbour_distances, root);
}

}  // namespace gpgpu::earth
