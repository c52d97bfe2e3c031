// Internal: one compute-backend stage bound to its buffers: the kernels it runs forward and
// backward, made once when a plan is built.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/defines.hpp"
#include "model_state.hpp"

namespace gpgpu::nn::detail {

// What every stage of a compute plan shares.
struct ComputeStageContext {
  const Context& context;
  const BackendOptions& options;
  std::size_t batch;
  Mode mode;
  Buffer& params;     // all parameters, flat
  Buffer& gradients;  // the trainable ones' gradients, flat
};

// The buffers of one stage: its input x and output y; in training the gradient dy with
// respect to its output (before its fused activation) and, unless it is the first stage and
// no input gradient was asked for, the gradient dx it writes for its input.
struct StageBuffers {
  const Buffer* x = nullptr;
  Buffer* y = nullptr;
  const Buffer* dy = nullptr;
  Buffer* dx = nullptr;
};

class ComputeRunner {
 public:
  virtual ~ComputeRunner() = default;
  virtual void forward(std::uint32_t seed) = 0;
  virtual void backward() = 0;
};

std::unique_ptr<ComputeRunner> make_compute_runner(const ComputeStageContext& sc,
                                                   const Stage& stage, StageBuffers buffers);

// A compute kernel with the shared GLSL (activations, hash) in front of `body`.
ComputeKernel make_nn_kernel(const Context& context, const char* body, Defines defines,
                             std::string label);
// A float as a GLSL literal ("0.5", "1e-05").
std::string glsl_float(double value);
// An extent as a GLSL int define, or LimitError when it does not fit an int.
std::string glsl_int(std::size_t value, const char* what);

}  // namespace gpgpu::nn::detail
