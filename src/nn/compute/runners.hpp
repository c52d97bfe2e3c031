// Internal: the compute backend's stages bound to their buffers — the kernels each runs
// forward and backward, made once when a plan is built — and the compute path of the
// shared element-wise stages (glsl/element_stage.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "glsl/element_kernel.hpp"
#include "glsl/element_stage.hpp"
#include "glsl/snippets.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/defines.hpp"
#include "plan/staged_plan.hpp"

namespace gpgpu::nn::detail {

// A compute kernel's source with the shared GLSL (activations, hash, augmentation, LOAD) in
// front.
inline KernelSource nn_kernel_source(const std::string& body, Defines defines, std::string label) {
  return {kernel_prelude(compute_access) + body, std::move(defines), std::move(label)};
}
inline ComputeKernel compile(const Context& context, const KernelSource& k) {
  return ComputeKernel(context, k.source, k.defines, k.label);
}
inline ComputeKernel make_nn_kernel(const Context& context, const std::string& body,
                                    const Defines& defines, std::string label) {
  return compile(context, nn_kernel_source(body, defines, std::move(label)));
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
  static KernelSource source(const glsl::ElementKernel& k, const Defines& d, std::string label) {
    return nn_kernel_source(glsl::compute_source(k), d, std::move(label));
  }
  Kernel kernel(const glsl::ElementKernel& k, const Defines& d, std::string label) const {
    return compile(*context_, source(k, d, std::move(label)));
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

// What a stage of a compute plan compiles on a device that `info` describes, for planner
// tests: the runners compile these very sources. A Dense or Conv2D stage lists its GEMMs with
// every candidate tiling (a tuning may keep any of them). `gradients`: the stage's backward
// pass runs (training); `input_gradient`: it also writes dL/d(input).
struct StageKernelNeeds {
  bool gradients = false;
  bool input_gradient = false;
};
std::vector<KernelSource> compute_stage_sources(const DeviceInfo& info, const Stage& stage,
                                                std::size_t batch, Mode mode,
                                                const BackendOptions& options,
                                                StageKernelNeeds needs);
std::vector<KernelSource> gemm_stage_sources(const DeviceInfo& info, const Stage& stage,
                                             std::size_t batch, Mode mode,
                                             const BackendOptions& options, StageKernelNeeds needs);
// Every kernel a compute plan compiles: its stages', the batch gather, the loss, the input
// copy, the output gradient and the optimizers' updates (SGD, SGD with momentum, Adam).
std::vector<KernelSource> compute_plan_sources(const DeviceInfo& info, const StagePlan& plan,
                                               const BackendOptions& options);

}  // namespace gpgpu::nn::detail
