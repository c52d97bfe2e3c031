// Under mpirun, `gpgpu earth` becomes gpgpu-mpi (see mpi_launch.hpp).
#include "mpi_launch.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

namespace gpgpu::cli {

namespace {

int from_environment(const char* first, const char* second, int otherwise) {
  for (const char* name : {first, second}) {
    const char* v = std::getenv(name);
    if (v != nullptr && *v != '\0') return std::atoi(v);
  }
  return otherwise;
}

// `train` and `earth` itself run across ranks; earth's other forms run in one process.
bool runs_across_ranks(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "train") == 0) return true;
  if (argc < 2 || std::strcmp(argv[1], "earth") != 0) return false;
  for (const char* one : {"grid", "bench", "compare", "partition"}) {
    if (argc >= 3 && std::strcmp(argv[2], one) == 0) return false;
  }
  return true;
}

}  // namespace

int launched_ranks() {
  return from_environment("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", 1);
}

int launched_rank() {
  return from_environment("OMPI_COMM_WORLD_RANK", "PMI_RANK", 0);
}

void hand_over_to_mpi(int argc, char** argv) {
  const int ranks = launched_ranks();
  if (ranks <= 1) return;
  if (!runs_across_ranks(argc, argv)) {
    if (launched_rank() == 0) {
      std::cerr << "gpgpu: note: only `gpgpu earth` and `gpgpu train` split their work "
                   "across MPI ranks; each of the "
                << ranks << " processes runs `gpgpu " << (argc > 1 ? argv[1] : "") << "` whole\n";
    }
    return;
  }
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto twin = self.parent_path() / "gpgpu-mpi";
  if (!ec && ::access(twin.c_str(), X_OK) == 0) {
    argv[0] = const_cast<char*>(twin.c_str());
    ::execv(twin.c_str(), argv);
    std::cerr << "gpgpu: could not start " << twin.string() << ": " << std::strerror(errno) << "\n";
    std::exit(1);
  }
  std::cerr << "gpgpu: error: started as one of " << ranks
            << " MPI ranks, but this gpgpu was built without MPI (no gpgpu-mpi beside it): each "
               "rank would run the whole model alone. Install openmpi-bin and libopenmpi-dev and "
               "rebuild, or run gpgpu without mpirun.\n";
  std::exit(1);
}

std::string single_copy_note() {
  const char* value = std::getenv("OMPI_MCA_btl_vader_single_copy_mechanism");
  if (value == nullptr) return "";
  const std::string v = value;
  if (v != "none" && v != "emulated" && v != "3" && v != "4") return "";
  return "note: OMPI_MCA_btl_vader_single_copy_mechanism=" + v +
         " turns Open MPI's single-copy transfers between ranks of a node off (every message "
         "is copied twice, halo exchanges and gradient sums are slower); unset it where the "
         "kernel allows cross-memory attach (cma)\n";
}

}  // namespace gpgpu::cli
