// CUB reference for the primitives benchmark (see cuda_primitives.hpp).
#include "cuda_primitives.hpp"

#include <cub/cub.cuh>

#include "cuda_common.cuh"

namespace gpgpu::cuda_ref {
namespace {

// Runs `call(temp, temp_bytes)` once to size the temporary storage, then warmup + repeats
// times with events around each timed call; returns the median milliseconds.
template <class Call>
double time_cub(Call call, int warmup, int repeats) {
  std::size_t temp_bytes = 0;
  GPGPU_CUDA_CHECK(call(nullptr, temp_bytes));
  CudaArray<std::byte> temp(temp_bytes);
  return median_event_ms(nullptr, warmup, repeats,
                         [&] { GPGPU_CUDA_CHECK(call(temp.get(), temp_bytes)); });
}

}  // namespace

double cub_reduce_sum(std::span<const float> in, float& result, int warmup, int repeats) {
  GPGPU_CUDA_CHECK(cudaSetDevice(0));
  CudaArray<float> d_in(in), d_out(1);
  const auto n = static_cast<std::int64_t>(in.size());
  const double ms = time_cub(
      [&](void* temp, std::size_t& bytes) {
        return cub::DeviceReduce::Sum(temp, bytes, d_in.get(), d_out.get(), n);
      },
      warmup, repeats);
  d_out.download(std::span<float>(&result, 1));
  return ms;
}

double cub_inclusive_sum(std::span<const float> in, std::span<float> out, int warmup, int repeats) {
  GPGPU_CUDA_CHECK(cudaSetDevice(0));
  CudaArray<float> d_in(in), d_out(in.size());
  const auto n = static_cast<std::int64_t>(in.size());
  const double ms = time_cub(
      [&](void* temp, std::size_t& bytes) {
        return cub::DeviceScan::InclusiveSum(temp, bytes, d_in.get(), d_out.get(), n);
      },
      warmup, repeats);
  d_out.download(out);
  return ms;
}

double cub_sort_keys(std::span<const std::uint32_t> in, std::span<std::uint32_t> out, int warmup,
                     int repeats) {
  GPGPU_CUDA_CHECK(cudaSetDevice(0));
  CudaArray<std::uint32_t> d_in(in), d_out(in.size());
  const auto n = static_cast<std::int64_t>(in.size());
  const double ms = time_cub(
      [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortKeys(temp, bytes, d_in.get(), d_out.get(), n);
      },
      warmup, repeats);
  d_out.download(out);
  return ms;
}

double cub_sort_pairs(std::span<const std::uint32_t> keys, std::span<const std::uint32_t> values,
                      std::span<std::uint32_t> keys_out, std::span<std::uint32_t> values_out,
                      int warmup, int repeats) {
  GPGPU_CUDA_CHECK(cudaSetDevice(0));
  CudaArray<std::uint32_t> d_keys(keys), d_values(values), d_keys_out(keys.size()),
      d_values_out(values.size());
  const auto n = static_cast<std::int64_t>(keys.size());
  const double ms = time_cub(
      [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, d_keys.get(), d_keys_out.get(),
                                               d_values.get(), d_values_out.get(), n);
      },
      warmup, repeats);
  d_keys_out.download(keys_out);
  d_values_out.download(values_out);
  return ms;
}

double cub_histogram_even(std::span<const float> in, float lo, float hi,
                          std::span<std::uint32_t> counts, int warmup, int repeats) {
  GPGPU_CUDA_CHECK(cudaSetDevice(0));
  CudaArray<float> d_in(in);
  CudaArray<unsigned int> d_counts(counts.size());
  const int levels = static_cast<int>(counts.size()) + 1;
  const auto n = static_cast<std::int64_t>(in.size());
  const double ms = time_cub(
      [&](void* temp, std::size_t& bytes) {
        return cub::DeviceHistogram::HistogramEven(temp, bytes, d_in.get(), d_counts.get(), levels,
                                                   lo, hi, n);
      },
      warmup, repeats);
  d_counts.download(std::span<unsigned int>(counts.data(), counts.size()));
  return ms;
}

}  // namespace gpgpu::cuda_ref
