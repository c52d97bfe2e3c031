// The CUDA reference of `gpgpu bench dispatch` (cuda_dispatch.hpp).
#include "cuda_dispatch.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "cuda_common.cuh"
#include "cuda_matmul.hpp"

namespace gpgpu::cuda_ref {
namespace {

constexpr int lanes = 64;

// y = x + 1, as the GL kernel of the bench.
__global__ void add_one(const float* x, float* y) {
  const int i = static_cast<int>(threadIdx.x);
  y[i] = x[i] + 1.0f;
}

// Host and GPU microseconds per kernel of each timed round.
struct Rounds {
  std::vector<double> cpu, gpu;
};

// A captured graph and its executable, freed together.
struct Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
  }
};

}  // namespace

DispatchTimes dispatch_times(int chain, int rounds, int warmup) {
  if (chain % 2 != 0 || chain <= 0) throw Error("CUDA dispatch reference: the chain must be even");
  DispatchTimes result;
  result.device = device_name();
  CudaArray<float> a(lanes), b(lanes);
  Stream stream;
  EventTimer timer(stream.get());
  const auto launch_chain = [&] {
    for (int k = 0; k < chain; ++k) {
      add_one<<<1, lanes, 0, stream.get()>>>(k % 2 == 0 ? a.get() : b.get(),
                                             k % 2 == 0 ? b.get() : a.get());
    }
  };
  // Rounds from zeros: the host time of issuing, then the GPU time between the events; each
  // round leaves `chain` in every element of a (an even chain ends where it began).
  const auto time_rounds = [&](const auto& issue, Rounds& t) {
    const std::vector<float> zeros(lanes, 0.0f);
    std::vector<float> got(lanes);
    for (int r = 0; r < warmup + rounds; ++r) {
      GPGPU_CUDA_CHECK(cudaMemcpy(a.get(), zeros.data(), a.bytes(), cudaMemcpyHostToDevice));
      timer.start();
      const auto begin = std::chrono::steady_clock::now();
      issue();
      const std::chrono::duration<double, std::micro> issued =
          std::chrono::steady_clock::now() - begin;
      const double ms = timer.stop_ms();
      GPGPU_CUDA_CHECK(cudaGetLastError());
      a.download(got);
      for (float v : got) {
        if (v != static_cast<float>(chain)) {
          throw Error("CUDA dispatch reference: the chain computed " + std::to_string(v) +
                      " instead of " + std::to_string(chain));
        }
      }
      if (r >= warmup) {
        t.cpu.push_back(issued.count() / chain);
        t.gpu.push_back(1e3 * ms / chain);
      }
    }
  };
  Rounds launched, replayed;
  time_rounds(launch_chain, launched);
  Graph g;
  GPGPU_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  launch_chain();
  GPGPU_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &g.graph));
  GPGPU_CUDA_CHECK(cudaGraphInstantiate(&g.exec, g.graph, 0));
  time_rounds([&] { GPGPU_CUDA_CHECK(cudaGraphLaunch(g.exec, stream.get())); }, replayed);

  result.stream_cpu_us = median(launched.cpu);
  result.stream_gpu_us = median(launched.gpu);
  result.graph_cpu_us = median(replayed.cpu);
  result.graph_gpu_us = median(replayed.gpu);
  return result;
}

}  // namespace gpgpu::cuda_ref
