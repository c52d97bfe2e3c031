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

}  // namespace

double saxpy_round_trip_ms(std::size_t n, bool pinned, int warmup, int repeats) {
  // Host memory of either kind: std::vectors (pageable: the driver stages their copies) or
  // pinned.
  std::vector<float> pageable_x(pinned ? 0 : n), pageable_y(pinned ? 0 : n);
  std::optional<CudaArray<float>> pinned_x, pinned_y;
  if (pinned) {
    pinned_x.emplace(n, true);
    pinned_y.emplace(n, true);
  }
  float* x = pinned ? pinned_x->get() : pageable_x.data();
  float* y = pinned ? pinned_y->get() : pageable_y.data();
  CudaArray<float> dx(n), dy(n);
  const float a = 2.0f;
  std::vector<double> times;
  for (int r = 0; r < warmup + repeats; ++r) {
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = static_cast<float>(i % 1024) * 0.5f;
      y[i] = 1.0f;
    }
    const auto start = std::chrono::steady_clock::now();
    GPGPU_CUDA_CHECK(cudaMemcpy(dx.get(), x, n * sizeof(float), cudaMemcpyHostToDevice));
    GPGPU_CUDA_CHECK(cudaMemcpy(dy.get(), y, n * sizeof(float), cudaMemcpyHostToDevice));
    const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
    saxpy<<<blocks, 256>>>(a, dx.get(), dy.get(), n);
    GPGPU_CUDA_CHECK(cudaGetLastError());
    GPGPU_CUDA_CHECK(cudaMemcpy(y, dy.get(), n * sizeof(float), cudaMemcpyDeviceToHost));
    const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
    if (r >= warmup) times.push_back(ms.count());
    for (std::size_t i = 0; i < n; i += std::max<std::size_t>(n / 97, 1)) {
      const float expected = a * (static_cast<float>(i % 1024) * 0.5f) + 1.0f;
      if (y[i] != expected) throw Error("CUDA SAXPY round trip computed a wrong result");
    }
  }
  return median(times);
}

}  // namespace gpgpu::cuda_ref
