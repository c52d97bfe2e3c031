// bench/cuda/cuda_datapath.hpp — the CUDA way of doing the data-path benchmarks' jobs, for
// comparison: a SAXPY round trip (copy x and y up, y = a x + y, copy y back) from ordinary
// (pageable) std::vectors and from pinned memory, and the same chunked pipeline. A plain C++
// header: callers need no CUDA. Every CUDA failure throws gpgpu::Error naming the call.
#pragma once

#include <cstddef>

namespace gpgpu::cuda_ref {

// Median wall milliseconds of `repeats` round trips after `warmup`: cudaMemcpy x and y host
// -> device, a SAXPY kernel, cudaMemcpy y back, synchronised. Device memory is allocated
// once, outside the timed calls (as gpgpu's pool does); the host arrays are std::vectors
// (pinned = false: the driver stages them) or cudaMallocHost memory (pinned = true). The
// result is checked (throws gpgpu::Error when wrong).
double saxpy_round_trip_ms(std::size_t n, bool pinned, int warmup, int repeats);

}  // namespace gpgpu::cuda_ref
