// Internal: the transform-feedback backend's own kernels, in the style of gpgpu.js: one
// vertex per output element (gl_VertexID), per-element inputs as attributes, everything
// read at other indices from textures, results captured as varyings. The direct-loop
// convolutions and dense layers, batch-norm statistics and the loss are element kernels
// (glsl/element_kernel.hpp) that only this backend runs; their arithmetic and that of
// the gather and optimizers is glsl/ops.hpp's, shared with the compute backend. Loops stay
// below llvmpipe's 65535 iterations: a loop over a batch and one over positions are nested
// rather than fused.
#pragma once

#include <string>

#include "glsl/element_kernel.hpp"

namespace gpgpu::nn::detail::tf {

// Dense and Conv2D: forward (one vertex per output), input gradient (per input), weight
// gradient (per weight) and bias gradient (per output feature or filter).
extern const glsl::ElementKernel dense_forward, dense_input_gradient, dense_weight_gradient,
    dense_bias_gradient, conv_forward, conv_input_gradient, conv_weight_gradient,
    conv_bias_gradient;
// Batch norm, one vertex per channel: the batch's mean and 1/sqrt(var + EPS) and the updated
// running statistics; sum(dy) and sum(dy xhat).
extern const glsl::ElementKernel batchnorm_stats, batchnorm_sums;
// The loss: per row (loss, correct, predicted class); per logit (its gradient); and the two
// accumulators (vertex 0: loss sum, 1: correct count) plus the first `valid` rows.
extern const glsl::ElementKernel loss_rows, loss_gradient, accumulate;

// The batch gather (pixels, then labels) and the optimizers over one parameter array at
// OFFSET of the parameter texture p.
extern const std::string gather_pixels, gather_labels, sgd, adam;

}  // namespace gpgpu::nn::detail::tf
