// Internal: a Conv2D and the MaxPool2D or AvgPool2D right after it, fused on the compute
// backend (BackendOptions::fuse_pooling).
//
// Forward, the convolution's GEMM takes its rows window by window: row m is element
// m % WIN of pooling window m / WIN (WIN = 1 or 4 positions, so a window is whole within an
// invocation's run of 4 rows, gemm.hpp's store_rows), and its epilogue adds the bias,
// applies the activation and reduces each window, in the window order and with the
// arithmetic of the pooling kernel (glsl/ops.hpp: pool_add, pool_value). It writes only the
// pooled output; in training also each window's largest position (max pooling) or, for an
// average pooling after an activation, the activation's outputs, whose derivative backward
// needs. No atomics and no shared memory: windows do not overlap (stride >= size), so every
// output is one invocation's. Positions no window covers (a floor-mode pooling's last row)
// are not computed at all.
//
// Backward, dL/d(convolution output) is glsl::pooled_gradient of the pooled gradient: either
// read inside the weight- and input-gradient GEMMs' loads (no array of the convolution's
// output size exists), or written by one kernel that both GEMMs then read.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "gpgpu/context.hpp"
#include "gpgpu/nn/model.hpp"
#include "plan/stage_plan.hpp"
#include "runners.hpp"

namespace gpgpu::nn::detail {

struct PoolFusion {
  std::size_t conv = 0, pool = 0;  // stage indices
  int window = 4;                  // positions per pooling window: 1 or 4
  bool gradient_kernel = false;    // backward through one kernel (else in the GEMMs' loads)
  bool pre_pool = false;           // training keeps the activation's outputs (average pooling)
  bool train = false;
};

// The Conv2D + pooling pairs of `plan` that run fused on a device described by `info`.
std::vector<PoolFusion> pool_fusions(const StagePlan& plan, const DeviceInfo& info,
                                     const BackendOptions& options);

// The arrays of a fused pair: x the convolution's input, y the pooled output, dy its
// gradient, dx the input gradient (null where the plan has none); pre_pool the activation's
// outputs (PoolFusion::pre_pool), conv_gradient dL/d(convolution output)
// (PoolFusion::gradient_kernel).
struct PoolFusionBuffers {
  StageBuffers stage;
  Buffer* pre_pool = nullptr;
  Buffer* conv_gradient = nullptr;
};

std::unique_ptr<StageKernels> make_conv_pool_runner(const ComputeStageContext& sc,
                                                    const Stage& conv, const Stage& pool,
                                                    const PoolFusion& fusion,
                                                    PoolFusionBuffers buffers);

// What a fused pair compiles on a device that `info` describes, for planner tests
// (runners.hpp: compute_plan_sources): its GEMMs with every candidate tiling, and the
// gradient kernel where the fusion has one. The runner compiles these very sources.
std::vector<KernelSource> conv_pool_sources(const DeviceInfo& info, const Stage& conv,
                                            const Stage& pool, const PoolFusion& fusion,
                                            std::size_t batch, const BackendOptions& options,
                                            bool input_gradient);

}  // namespace gpgpu::nn::detail
