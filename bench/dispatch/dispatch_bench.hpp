// `gpgpu bench dispatch`: what one compute dispatch costs the CPU issued by
// ComputeKernel::run and replayed from a gpgpu::Sequence, and what a dependent one costs the
// GPU, beside CUDA stream launches and a CUDA-graph replay of the same tiny kernels on the
// same GPU in the same run (where the CUDA reference is built: GPGPU_CUDA).
//
// The work: a chain of `chain` dispatches of one 64-invocation work group, each adding 1 to
// the 64 floats the previous one wrote (a read-after-write dependency, so a barrier between
// every two), and the same number of independent ones (each writes its own Buffer: no
// barriers). Per measurement the median over `rounds` rounds after `warmup`; the final values
// are checked.
#pragma once

#include <filesystem>

#include "gpgpu/context.hpp"

namespace gpgpu::bench {

struct DispatchBenchOptions {
  int chain = 256;   // dispatches per round
  int rounds = 21;   // timed rounds (median)
  int warmup = 3;    // untimed rounds first
  bool cuda = true;  // compare with CUDA where built and a CUDA device exists
  std::filesystem::path out_dir = "out/bench/dispatch";
};

// Prints a table and writes it as bench-dispatch.json and .csv into out_dir (Table::write:
// the chain and the CUDA reference's device, or why it did not run, as notes); returns 0.
// Throws gpgpu::Error when a result is wrong.
int run_dispatch_bench(const DispatchBenchOptions& options, const Context& ctx);

}  // namespace gpgpu::bench
