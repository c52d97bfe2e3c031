// Internal: what the CPU backend's stage kernels share — the pool they run on, the flat
// parameter and gradient arrays, and each stage's views into the plan's activation arrays.
#pragma once

#include <cstddef>
#include <memory>

#include "cpu/thread_pool.hpp"
#include "plan/staged_plan.hpp"

namespace gpgpu::nn::detail {

struct CpuStageContext {
  ThreadPool& pool;
  std::size_t batch;
  Mode mode;
  float* params;     // all parameters, flat (BatchNorm writes its running statistics here)
  float* gradients;  // the trainable ones' gradients, flat
};

// A stage's input x and output y, each (batch, per-sample size); in training the gradient
// dy of its output (before its fused activation) and, unless it is the first stage and no
// input gradient was asked for, the gradient dx it writes.
struct CpuStageArrays {
  const float* x = nullptr;
  float* y = nullptr;
  const float* dy = nullptr;
  float* dx = nullptr;
};

std::unique_ptr<StageKernels> make_cpu_kernels(const CpuStageContext& context, const Stage& stage,
                                               CpuStageArrays arrays);

}  // namespace gpgpu::nn::detail
