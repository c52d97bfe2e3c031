// Internal: the implicit GEMMs of Dense and Conv2D stages (gemm_layers.cpp), for the runners
// that run them: the plain stage (gemm_layers.cpp) and a convolution with its pooling fused
// in (pool_fusion.cpp).
#pragma once

#include <array>
#include <cstddef>

#include "gemm.hpp"
#include "plan/stage_plan.hpp"

namespace gpgpu::nn::detail {

struct PoolFusion;

struct LinearGemm {
  GemmShape shape;
  GemmSource source;
};

// A convolution's forward, weight-gradient and input-gradient GEMMs, compiled with
// `defines`. With `fusion`, `pool` is the pooling stage fused into it: the forward GEMM
// pools in its epilogue, and the gradient GEMMs read dL/d(pooled output) ("dyp") through
// the pooling unless the fusion writes the convolution's output gradient with a kernel.
std::array<LinearGemm, 3> conv_gemms(const Stage& conv, std::size_t batch, const Defines& defines,
                                     const PoolFusion* fusion = nullptr,
                                     const Stage* pool = nullptr);

}  // namespace gpgpu::nn::detail
