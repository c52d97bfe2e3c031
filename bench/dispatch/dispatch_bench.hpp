// `gpgpu bench dispatch`: what one compute dispatch costs the CPU, issued by
// ComputeKernel::run and replayed from a gpgpu::Sequence, and what a dependent one costs the
// GPU, beside CUDA stream launches and a CUDA-graph replay where the CUDA reference is built.
// The chains it times and how: docs/sequences.md ("Measured"). The final values are checked.
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
