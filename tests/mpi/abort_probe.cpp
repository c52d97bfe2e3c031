// A rank that fails alone: rank 1 meets bad input and throws while rank 0 waits in an
// allreduce for it. run_or_abort must end the whole job with rank 1's message (ctest checks
// the message and, by its timeout, that nothing hangs).
#include <span>
#include <vector>

#include "gpgpu/error.hpp"
#include "gpgpu/mpi/collectives.hpp"
#include "gpgpu/mpi/communicator.hpp"

int main(int argc, char** argv) {
  gpgpu::mpi::Session session(argc, argv);
  gpgpu::mpi::Communicator world;
  return gpgpu::mpi::run_or_abort(
      world,
      [&] {
        if (world.rank() == 1) throw gpgpu::ArgumentError("bad input on rank 1 only");
        std::vector<double> v{1.0};
        gpgpu::mpi::allreduce(world, std::span<double>(v));  // waits for rank 1 forever
        return 0;
      },
      "abort_probe");
}
