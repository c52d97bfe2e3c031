// bench/cuda/cuda_primitives.hpp — CUB (the CUDA toolkit's parallel primitives), the
// reference `gpgpu bench primitives` compares with. A plain C++ header: callers need no
// CUDA. Each call uploads its input once, runs `warmup` untimed and `repeats` timed calls
// (CUDA events around the CUB call alone), returns the median milliseconds and the last
// result for checking. Every CUDA failure throws gpgpu::Error naming the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace gpgpu::cuda_ref {

// cub::DeviceReduce::Sum of float32.
double cub_reduce_sum(std::span<const float> in, float& result, int warmup, int repeats);
// cub::DeviceScan::InclusiveSum of float32.
double cub_inclusive_sum(std::span<const float> in, std::span<float> out, int warmup, int repeats);
// cub::DeviceRadixSort::SortKeys of uint32 (all 32 bits; the input buffer is kept).
double cub_sort_keys(std::span<const std::uint32_t> in, std::span<std::uint32_t> out, int warmup,
                     int repeats);
// cub::DeviceRadixSort::SortPairs: uint32 keys with uint32 values.
double cub_sort_pairs(std::span<const std::uint32_t> keys, std::span<const std::uint32_t> values,
                      std::span<std::uint32_t> keys_out, std::span<std::uint32_t> values_out,
                      int warmup, int repeats);
// cub::DeviceHistogram::HistogramEven: `counts.size()` equal bins over [lo, hi).
double cub_histogram_even(std::span<const float> in, float lo, float hi,
                          std::span<std::uint32_t> counts, int warmup, int repeats);

}  // namespace gpgpu::cuda_ref
