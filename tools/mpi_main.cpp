// gpgpu-mpi — `gpgpu earth` and `gpgpu train` across MPI ranks, one GPU each:
//   mpirun -np 4 gpgpu-mpi earth --case 5 --level 8
//   mpirun -np 4 gpgpu earth --case 5 --level 8       (gpgpu hands over to this program)
//   mpirun -np 2 gpgpu train --net cnn --batch 512    (data-parallel: a shard of each batch)
// Every rank runs the same command; the grid is split along its space-filling curve (each
// global batch into shards), rank 0 prints and writes the files. A failure every rank sees (a bad
// option, a state that blew up) ends every rank with one message and exit code 1; a failure of one
// rank alone ends the job through MPI_Abort with that rank's message (gpgpu/mpi/communicator.hpp).
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "earth_command.hpp"
#include "gpgpu/earth/mpi.hpp"
#include "gpgpu/mpi/communicator.hpp"
#include "gpgpu/nn/mpi.hpp"
#include "mpi_launch.hpp"
#include "train_command.hpp"

namespace {

bool collective(const std::exception& e) {
  return gpgpu::mpi::is_collective_error(e) ||
         dynamic_cast<const gpgpu::earth::TeamError*>(&e) != nullptr;
}

// The launcher and the MPI library must agree on the rank count: an mpirun of another MPI
// starts every process as a rank 0 of 1 (each would run the whole model and write the same
// files).
std::string launch_error(const gpgpu::mpi::Communicator& world) {
  const int announced = gpgpu::cli::launched_ranks();
  if (announced <= 1 || announced == world.size()) return "";
  return fmt::format(
      "the launcher started {} ranks, but MPI sees {}: mpirun belongs to another MPI than the "
      "one gpgpu-mpi was built with",
      announced, world.size());
}

}  // namespace

int main(int argc, char** argv) {
  gpgpu::mpi::Session session(argc, argv);
  gpgpu::mpi::Communicator world;
  CLI::App app{
      "gpgpu-mpi: `gpgpu earth` and `gpgpu train` across MPI ranks (mpirun -np N gpgpu-mpi "
      "earth|train ...)"};
  app.require_subcommand(1);
  auto earth_command = gpgpu::cli::add_earth_command(
      app, [&world] { return std::make_unique<gpgpu::earth::MpiTeam>(world); });
  auto train_command = gpgpu::cli::add_train_command(
      app, [&world] { return std::make_unique<gpgpu::nn::MpiTeam>(world); });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::ostringstream quiet;  // every rank parsed the same arguments: rank 0 speaks
    return world.rank() == 0 ? app.exit(e) : app.exit(e, quiet, quiet);
  }
  return gpgpu::mpi::run_or_abort(
      world,
      [&] {
        const std::string error = launch_error(world);
        if (!error.empty()) throw gpgpu::Error(error);
        if (world.rank() == 0 && world.size() > 1) std::cerr << gpgpu::cli::single_copy_note();
        if (app.got_subcommand("train")) return train_command();
        const auto* earth = app.get_subcommand("earth");
        for (const char* one : {"grid", "bench", "compare", "partition"}) {
          if (earth->got_subcommand(one) && world.size() > 1) {
            throw gpgpu::earth::TeamError(fmt::format(
                "`earth {}` runs in one process: use gpgpu earth {} without mpirun", one, one));
          }
        }
        return earth_command();
      },
      "gpgpu-mpi", collective);
}
