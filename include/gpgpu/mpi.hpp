// gpgpu/mpi.hpp — gpgpu across processes and GPUs through MPI (Open MPI): gpgpu::mpi.
//
//   #include <gpgpu/mpi.hpp>
//   int main(int argc, char** argv) {
//     gpgpu::mpi::Session session(argc, argv);                  // communicator.hpp
//     gpgpu::mpi::Communicator world;
//     return gpgpu::mpi::run_or_abort(world, [&] {
//       gpgpu::Context ctx = gpgpu::mpi::make_context(world);   // device.hpp: a GPU per rank
//       auto grads = gpgpu::Buffer::from(ctx, host_gradients);
//       gpgpu::mpi::allreduce(world, grads, gpgpu::mpi::Reduction::Mean);  // collectives.hpp
//       gpgpu::mpi::HaloExchange halo(world, ctx, gpgpu::ElementType::Float32, 4, items,
//                                     links);                   // halo_exchange.hpp
//       halo.exchange(state);
//       return 0;
//     });
//   }
//   mpirun -np 4 ./program
//
// One rank per GPU; data moves between GPUs through host memory ("host-staged": download
// through the Context's data path, MPI, upload), which works with any MPI and any device
// gpgpu runs on, llvmpipe included. gpgpu::mpi is its own library (CMake target
// gpgpu::mpi, built when find_package(MPI) finds one); the core library knows no MPI.
// docs/mpi.md is the manual; docs/scale.md models what the traffic costs at scale.
#pragma once

#include "gpgpu/mpi/collectives.hpp"
#include "gpgpu/mpi/communicator.hpp"
#include "gpgpu/mpi/device.hpp"
#include "gpgpu/mpi/gradient_buckets.hpp"
#include "gpgpu/mpi/halo_exchange.hpp"
