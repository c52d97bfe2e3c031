// bench/memory_runner.hpp — `gpgpu bench memory`: how fast data moves between the host and
// the device and within the device: transfer, bandwidth, transpose, soa and workgroup, each a
// table on stdout and, with an out_dir, memory-<name>.json and .csv. What each times, how, and
// what its GB/s count: docs/memory.md (the topics table and "Running the benchmarks").
#pragma once

#include <cstddef>

#include "harness.hpp"

namespace gpgpu::bench {

struct MemoryBenchOptions {
  std::string which = "all";      // transfer, bandwidth, transpose, soa, workgroup or all
  std::filesystem::path out_dir;  // empty: tables on stdout only
  int warmup = 2;
  int repeats = 7;
  bool quick = false;  // the smallest sizes: a smoke test, seconds even on llvmpipe
  // Sizes; 0 takes the defaults, which depend on the device (a GPU / llvmpipe):
  std::size_t transfer_max_bytes = 0;  // largest transfer: 1 GiB / 64 MiB (1 MiB, x16, ...)
  std::size_t bandwidth_floats = 0;    // 2^28 / 2^24, clamped to the storage-block limit
  std::size_t transpose_n = 0;         // n x n, n x n/4 and n/4 x n matrices: 8192 / 1024
  std::size_t particles = 0;           // 2^24 / 2^20
  bool cuda = true;                    // compare with CUDA when gpgpu_cuda_ref is built
  std::ostream* log = nullptr;         // progress and tables; nullptr: std::cout
};

// Runs the chosen benchmarks on `context`. Returns 0; throws gpgpu::ArgumentError for an
// unknown `which` or bad counts, gpgpu::Error when a kernel or file fails.
int run_memory_bench(const MemoryBenchOptions& options, Context& context);

}  // namespace gpgpu::bench
