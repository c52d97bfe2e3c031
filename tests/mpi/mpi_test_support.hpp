// Shared by the tests that run under mpirun: the world communicator, a seed every rank
// shares (fresh per run, printed on failure), and the check that all ranks passed.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "gpgpu/mpi/communicator.hpp"

namespace gpgpu::test {

mpi::Communicator& world();

// Rank 0's fresh random seed, on every rank: each rank can then make every rank's inputs.
std::uint32_t shared_seed();

// Uniform floats in [-1, 1) from (seed, stream): the same numbers on every rank.
std::vector<float> floats_of(std::uint32_t seed, int stream, std::size_t n);

}  // namespace gpgpu::test
