// broadcast_grid: rank 0's Grid to all ranks as its encoded bytes (see gpgpu/earth/mpi.hpp).
#include <cstddef>
#include <vector>

#include "gpgpu/earth/grid_cache.hpp"
#include "gpgpu/earth/mpi.hpp"
#include "gpgpu/mpi/collectives.hpp"

namespace gpgpu::earth {

// The centres, triangles and options only (encode_grid: 48 bytes a cell, a ninth of the
// Grid in memory); the others rebuild the rest as reading a cached grid does, bit for bit
// the grid the root holds (grid_cache.hpp). Damaged bytes cannot arrive (MPI delivers what
// was sent), so decode_grid throwing here would be a bug: it ends the job through
// run_or_abort like any error of one rank.
void broadcast_grid(const mpi::Communicator& comm, Grid& grid, int root) {
  std::vector<std::byte> bytes;
  if (comm.rank() == root) bytes = encode_grid(grid);
  mpi::broadcast(comm, bytes, root);
  if (comm.rank() != root) grid = decode_grid(bytes);
}

}  // namespace gpgpu::earth
