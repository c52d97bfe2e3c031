// bench/cuda/cuda_dispatch.hpp — the CUDA reference of `gpgpu bench dispatch`: the same chain
// of tiny dependent kernels (one block of 64 threads adding 1 to what the previous one
// wrote) launched on a stream and replayed from a CUDA graph. A plain C++ header: callers
// need no CUDA. Every CUDA failure throws gpgpu::Error naming the call.
#pragma once

#include <string>

namespace gpgpu::cuda_ref {

struct DispatchTimes {
  std::string device;
  double stream_cpu_us = -1;  // host time per kernel launch on a stream (no waits)
  double stream_gpu_us = -1;  // GPU time per kernel in the chain (events around it)
  double graph_cpu_us = -1;   // host time of cudaGraphLaunch per kernel of the graph
  double graph_gpu_us = -1;   // GPU time per kernel of the replayed graph
};

// Medians over `rounds` rounds of `chain` kernels after `warmup` rounds; the result of every
// round is checked (throws gpgpu::Error when wrong).
DispatchTimes dispatch_times(int chain, int rounds, int warmup);

}  // namespace gpgpu::cuda_ref
