// Internal: the compute backend's stages bound to their buffers — the kernels each runs
// forward and backward, made once when a plan is built — and the compute path of the
// shared element-wise stages (glsl/element_stage.hpp).
#pragma once

#include <memory>
#include <string>

#include "glsl/element_kernel.hpp"
#include "glsl/element_stage.hpp"
#include "glsl/snippets.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/defines.hpp"
#include "plan/staged_plan.hpp"

namespace gpgpu::nn::detail {

// A compute kernel with the shared GLSL (activations, hash, augmentation, LOAD) in front.
inline ComputeKernel make_nn_kernel(const Context& context, const std::string& body,
                                    const Defines& defines, std::string label) {
  return ComputeKernel(context, kernel_prelude(compute_access) + body, defines, std::move(label));
}

// What every stage of a compute plan shares.
struct ComputeStageContext {
  const Context& context;
  const BackendOptions& options;
  std::size_t batch;
  Mode mode;
  Buffer& params;     // all parameters, flat
  Buffer& gradients;  // the trainable ones' gradients, flat
};

using StageBuffers = GpuStageArrays<Buffer>;

// Arrays are Buffers, read and written as storage buffers.
class ComputePath {
 public:
  using Array = Buffer;
  using Kernel = ComputeKernel;
  explicit ComputePath(const Context& context) : context_(&context) {}
  Kernel kernel(const glsl::ElementKernel& k, const Defines& d, std::string label) const {
    return make_nn_kernel(*context_, glsl::compute_source(k), d, std::move(label));
  }
  Arg element(const Buffer& b) const { return b; }
  Arg gathered(const Buffer& b) const { return b; }
  Buffer array(std::size_t n) const { return Buffer(*context_, ElementType::Float32, n); }
  void run(Kernel& k, const Args& args, std::size_t n) const { k.run(args, n); }
  void publish(Buffer&) const {}

 private:
  const Context* context_;
};

std::unique_ptr<StageKernels> make_compute_runner(const ComputeStageContext& sc, const Stage& stage,
                                                  StageBuffers buffers);

}  // namespace gpgpu::nn::detail
