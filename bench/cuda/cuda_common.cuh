// bench/cuda/cuda_common.cuh — what the CUDA references share: every call checked (a failure
// throws gpgpu::Error naming the call and the CUDA error), device and pinned host arrays and
// streams that free themselves, event timing, and the median of event-timed calls.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/error.hpp"

namespace gpgpu::cuda_ref {

inline void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw Error(std::string(call) + " failed: " + cudaGetErrorName(status) + " (" +
                cudaGetErrorString(status) + ")");
  }
}
// The call's own text goes into the message, so a failure names exactly what failed.
#define GPGPU_CUDA_CHECK(call) check((call), #call)

// `count` elements in device memory (pinned = false) or page-locked host memory (pinned =
// true: copies run at full bus speed and asynchronously).
template <class T>
class CudaArray {
 public:
  explicit CudaArray(std::size_t count, bool pinned = false) : count_(count), pinned_(pinned) {
    const std::size_t size = std::max<std::size_t>(bytes(), 1);
    if (pinned) {
      GPGPU_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&pointer_), size));
    } else {
      GPGPU_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&pointer_), size));
    }
  }
  // A device copy of `host`.
  explicit CudaArray(std::span<const T> host) : CudaArray(host.size()) {
    GPGPU_CUDA_CHECK(cudaMemcpy(pointer_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  ~CudaArray() { pinned_ ? cudaFreeHost(pointer_) : cudaFree(pointer_); }
  CudaArray(const CudaArray&) = delete;
  CudaArray& operator=(const CudaArray&) = delete;
  T* get() const { return pointer_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  void download(std::span<T> out) const {
    GPGPU_CUDA_CHECK(cudaMemcpy(out.data(), pointer_, std::min(out.size_bytes(), bytes()),
                                cudaMemcpyDeviceToHost));
  }

 private:
  std::size_t count_;
  bool pinned_;
  T* pointer_ = nullptr;
};

// A non-blocking stream of its own.
class Stream {
 public:
  Stream() { GPGPU_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Times work queued on a stream between start() and stop_ms().
class EventTimer {
 public:
  explicit EventTimer(cudaStream_t stream = nullptr) : stream_(stream) {
    GPGPU_CUDA_CHECK(cudaEventCreate(&start_));
    GPGPU_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start() { GPGPU_CUDA_CHECK(cudaEventRecord(start_, stream_)); }
  double stop_ms() {
    GPGPU_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    GPGPU_CUDA_CHECK(cudaEventSynchronize(stop_));
    float milliseconds = 0.0f;
    GPGPU_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start_, stop_));
    return milliseconds;
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 == 1 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// `warmup` untimed calls of `call`, then the median milliseconds of `repeats` timed ones,
// each between two events on `stream`.
template <class Call>
double median_event_ms(cudaStream_t stream, int warmup, int repeats, Call call) {
  for (int i = 0; i < warmup; ++i) call();
  EventTimer timer(stream);
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    timer.start();
    call();
    ms.push_back(timer.stop_ms());
  }
  return median(ms);
}

}  // namespace gpgpu::cuda_ref
