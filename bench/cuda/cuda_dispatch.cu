// The CUDA reference of `gpgpu bench dispatch` (cuda_dispatch.hpp).
#include "cuda_dispatch.hpp"

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "cuda_common.cuh"

namespace gpgpu::cuda_ref {
namespace {

constexpr int lanes = 64;

// y = x + 1, as the GL kernel of the bench.
__global__ void add_one(const float* x, float* y) {
  const int i = static_cast<int>(threadIdx.x);
  y[i] = x[i] + 1.0f;
}

double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Device {
  float* a = nullptr;
  float* b = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  Device() {
    GPGPU_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&a), lanes * sizeof(float)));
    GPGPU_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&b), lanes * sizeof(float)));
    GPGPU_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    GPGPU_CUDA_CHECK(cudaEventCreate(&start));
    GPGPU_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~Device() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaStreamDestroy(stream);
    cudaFree(a);
    cudaFree(b);
  }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  void reset() {
    const std::vector<float> zeros(lanes, 0.0f);
    GPGPU_CUDA_CHECK(cudaMemcpy(a, zeros.data(), lanes * sizeof(float), cudaMemcpyHostToDevice));
  }
  // The chain leaves `chain` in every element of a (an even chain ends where it began).
  void expect(int chain) {
    std::vector<float> got(lanes);
    GPGPU_CUDA_CHECK(cudaMemcpy(got.data(), a, lanes * sizeof(float), cudaMemcpyDeviceToHost));
    for (float v : got) {
      if (v != static_cast<float>(chain)) {
        throw Error("CUDA dispatch reference: the chain computed " + std::to_string(v) +
                    " instead of " + std::to_string(chain));
      }
    }
  }
  void launch_chain(int chain) {
    for (int k = 0; k < chain; ++k) {
      add_one<<<1, lanes, 0, stream>>>(k % 2 == 0 ? a : b, k % 2 == 0 ? b : a);
    }
  }
};

struct Timing {
  std::vector<double> cpu, gpu;
};

// One round: the host time of issuing, then the GPU time between the events.
template <class Issue>
void time_round(Device& d, int chain, Issue issue, Timing* t) {
  d.reset();
  GPGPU_CUDA_CHECK(cudaEventRecord(d.start, d.stream));
  const double begin = now_us();
  issue();
  const double issued = now_us();
  GPGPU_CUDA_CHECK(cudaEventRecord(d.stop, d.stream));
  GPGPU_CUDA_CHECK(cudaEventSynchronize(d.stop));
  GPGPU_CUDA_CHECK(cudaGetLastError());
  float ms = 0;
  GPGPU_CUDA_CHECK(cudaEventElapsedTime(&ms, d.start, d.stop));
  d.expect(chain);
  if (t != nullptr) {
    t->cpu.push_back((issued - begin) / chain);
    t->gpu.push_back(1e3 * ms / chain);
  }
}

}  // namespace

DispatchTimes dispatch_times(int chain, int rounds, int warmup) {
  if (chain % 2 != 0 || chain <= 0) throw Error("CUDA dispatch reference: the chain must be even");
  int device = 0;
  GPGPU_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  GPGPU_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  DispatchTimes result;
  result.device = prop.name;
  Device d;

  Timing stream;
  for (int r = 0; r < warmup + rounds; ++r) {
    time_round(d, chain, [&] { d.launch_chain(chain); }, r < warmup ? nullptr : &stream);
  }

  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  GPGPU_CUDA_CHECK(cudaStreamBeginCapture(d.stream, cudaStreamCaptureModeThreadLocal));
  d.launch_chain(chain);
  GPGPU_CUDA_CHECK(cudaStreamEndCapture(d.stream, &graph));
  GPGPU_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  Timing replay;
  try {
    for (int r = 0; r < warmup + rounds; ++r) {
      time_round(d, chain, [&] { GPGPU_CUDA_CHECK(cudaGraphLaunch(exec, d.stream)); },
                 r < warmup ? nullptr : &replay);
    }
  } catch (...) {
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    throw;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);

  result.stream_cpu_us = median(stream.cpu);
  result.stream_gpu_us = median(stream.gpu);
  result.graph_cpu_us = median(replay.cpu);
  result.graph_gpu_us = median(replay.gpu);
  return result;
}

}  // namespace gpgpu::cuda_ref
