// gpgpu/mpi/device.hpp — one Context per rank, on the GPU its node-local rank picks.
//
//   gpgpu::mpi::Communicator world;
//   gpgpu::Context ctx = gpgpu::mpi::make_context(world);   // rank 1 of a node: its 2nd GPU
//
// The choice, first match wins:
//   1. ContextOptions::device (or `requested`) when it is not "auto": the user's word;
//   2. $GPGPU_DEVICE when set (a launcher wrapper may set it per rank);
//   3. the hardware GPU numbered (local rank mod GPUs on the node), as an index of
//      gpgpu::list_devices(): ranks spread over the node's GPUs, and share them round-robin
//      when there are more ranks than GPUs;
//   4. "auto" when the node has no hardware GPU (llvmpipe).
#pragma once

#include <string>

#include "gpgpu/context.hpp"
#include "gpgpu/mpi/communicator.hpp"

namespace gpgpu::mpi {

// The device string for this rank's Context (see above). Not collective.
std::string device_for_rank(const Communicator& comm, const std::string& requested = "auto");

// A Context on that device.
Context make_context(const Communicator& comm, ContextOptions options = {});

}  // namespace gpgpu::mpi
