// Telling whether `gpgpu` was started by an MPI launcher (mpirun), and handing such a run of
// `gpgpu earth` or `gpgpu train` over to gpgpu-mpi, the build's MPI twin of this program. The gpgpu
// binary itself links no MPI: it starts without loading MPI's libraries and runs where no MPI is
// installed.
#pragma once

#include <string>

namespace gpgpu::cli {

// The rank count the launcher announced in the environment (Open MPI's
// OMPI_COMM_WORLD_SIZE, or PMI_SIZE of MPICH, Intel MPI and Slurm's PMI); 1 when none did.
int launched_ranks();
// The rank the launcher announced (OMPI_COMM_WORLD_RANK or PMI_RANK); 0 when none did.
int launched_rank();

// Started by mpirun as one of several ranks, `gpgpu earth` or `gpgpu train` replaces this process
// with gpgpu-mpi (same arguments) when it was built, and stops with an error when it was not; other
// commands run whole in every process. Returns when not under MPI.
void hand_over_to_mpi(int argc, char** argv);

// A note for a run across ranks when the environment turns Open MPI's single-copy transfers
// between ranks of a node off (OMPI_MCA_btl_vader_single_copy_mechanism none or emulated, as
// some images preset): every message is then copied twice through shared memory. Empty when
// not. (2 x H200: 1 MB each way 0.18 against 0.05 ms, the earth at level 9 1,935 against 2,036
// steps/s; docs/mpi.md.)
std::string single_copy_note();

}  // namespace gpgpu::cli
