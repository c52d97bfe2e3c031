// The CUDA references of the data-path benchmarks (cuda_datapath.hpp).
#include "cuda_datapath.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "gpgpu/error.hpp"

namespace gpgpu::cuda_ref {
namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw Error(std::string(call) + " failed: " + cudaGetErrorName(status) + " (" +
                cudaGetErrorString(status) + ")");
  }
}
#define GPGPU_CUDA_CHECK(call) check((call), #call)

__global__ void saxpy(float a, const float* x, float* y, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 == 1 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Host memory of either kind, freed by its owner.
struct HostArray {
  HostArray(std::size_t n, bool pinned) : pinned_(pinned) {
    if (pinned) {
      GPGPU_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data), n * sizeof(float)));
    } else {
      storage.resize(n);
      data = storage.data();
    }
  }
  ~HostArray() {
    if (pinned_) cudaFreeHost(data);
  }
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;
  float* data = nullptr;
  std::vector<float> storage;

 private:
  bool pinned_;
};

struct DeviceArray {
  explicit DeviceArray(std::size_t n) {
    GPGPU_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data), n * sizeof(float)));
  }
  ~DeviceArray() { cudaFree(data); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  float* data = nullptr;
};

}  // namespace

double saxpy_round_trip_ms(std::size_t n, bool pinned, int warmup, int repeats) {
  HostArray x(n, pinned), y(n, pinned);
  DeviceArray dx(n), dy(n);
  const float a = 2.0f;
  std::vector<double> times;
  for (int r = 0; r < warmup + repeats; ++r) {
    for (std::size_t i = 0; i < n; ++i) {
      x.data[i] = static_cast<float>(i % 1024) * 0.5f;
      y.data[i] = 1.0f;
    }
    const double start = now_ms();
    GPGPU_CUDA_CHECK(cudaMemcpy(dx.data, x.data, n * sizeof(float), cudaMemcpyHostToDevice));
    GPGPU_CUDA_CHECK(cudaMemcpy(dy.data, y.data, n * sizeof(float), cudaMemcpyHostToDevice));
    const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
    saxpy<<<blocks, 256>>>(a, dx.data, dy.data, n);
    GPGPU_CUDA_CHECK(cudaGetLastError());
    GPGPU_CUDA_CHECK(cudaMemcpy(y.data, dy.data, n * sizeof(float), cudaMemcpyDeviceToHost));
    const double ms = now_ms() - start;
    if (r >= warmup) times.push_back(ms);
    for (std::size_t i = 0; i < n; i += std::max<std::size_t>(n / 97, 1)) {
      const float expected = a * (static_cast<float>(i % 1024) * 0.5f) + 1.0f;
      if (y.data[i] != expected) throw Error("CUDA SAXPY round trip computed a wrong result");
    }
  }
  return median(times);
}

double pageable_copy_ms(std::size_t bytes, bool host_to_device, int warmup, int repeats) {
  const std::size_t n = std::max<std::size_t>(bytes / sizeof(float), 1);
  HostArray host(n, false);
  DeviceArray device(n);
  std::fill(host.data, host.data + n, 1.0f);
  std::vector<double> times;
  for (int r = 0; r < warmup + repeats; ++r) {
    const double start = now_ms();
    if (host_to_device) {
      GPGPU_CUDA_CHECK(
          cudaMemcpy(device.data, host.data, n * sizeof(float), cudaMemcpyHostToDevice));
    } else {
      GPGPU_CUDA_CHECK(
          cudaMemcpy(host.data, device.data, n * sizeof(float), cudaMemcpyDeviceToHost));
    }
    if (r >= warmup) times.push_back(now_ms() - start);
  }
  return median(times);
}

}  // namespace gpgpu::cuda_ref
