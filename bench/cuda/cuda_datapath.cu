// The CUDA references of the data-path benchmarks (cuda_datapath.hpp).
#include "cuda_datapath.hpp"

#include <chrono>
#include <optional>

#include "cuda_common.cuh"

namespace gpgpu::cuda_ref {
namespace {

__global__ void saxpy(float a, const float* x, float* y, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Host memory of either kind: a std::vector (pageable: the driver stages its copies) or
// pinned.
struct HostArray {
  HostArray(std::size_t n, bool pinned) {
    if (pinned) {
      pinned_memory.emplace(n, true);
    } else {
      storage.resize(n);
    }
    data = pinned ? pinned_memory->get() : storage.data();
  }
  std::optional<CudaArray<float>> pinned_memory;
  std::vector<float> storage;
  float* data = nullptr;
};

}  // namespace

double saxpy_round_trip_ms(std::size_t n, bool pinned, int warmup, int repeats) {
  HostArray x(n, pinned), y(n, pinned);
  CudaArray<float> dx(n), dy(n);
  const float a = 2.0f;
  std::vector<double> times;
  for (int r = 0; r < warmup + repeats; ++r) {
    for (std::size_t i = 0; i < n; ++i) {
      x.data[i] = static_cast<float>(i % 1024) * 0.5f;
      y.data[i] = 1.0f;
    }
    const double start = now_ms();
    GPGPU_CUDA_CHECK(cudaMemcpy(dx.get(), x.data, n * sizeof(float), cudaMemcpyHostToDevice));
    GPGPU_CUDA_CHECK(cudaMemcpy(dy.get(), y.data, n * sizeof(float), cudaMemcpyHostToDevice));
    const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
    saxpy<<<blocks, 256>>>(a, dx.get(), dy.get(), n);
    GPGPU_CUDA_CHECK(cudaGetLastError());
    GPGPU_CUDA_CHECK(cudaMemcpy(y.data, dy.get(), n * sizeof(float), cudaMemcpyDeviceToHost));
    const double ms = now_ms() - start;
    if (r >= warmup) times.push_back(ms);
    for (std::size_t i = 0; i < n; i += std::max<std::size_t>(n / 97, 1)) {
      const float expected = a * (static_cast<float>(i % 1024) * 0.5f) + 1.0f;
      if (y.data[i] != expected) throw Error("CUDA SAXPY round trip computed a wrong result");
    }
  }
  return median(times);
}

}  // namespace gpgpu::cuda_ref
