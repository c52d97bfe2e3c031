// Internal: computing C = A · B in several passes over k, for shapes whose k one pass of a
// method cannot take.
//
// Two limits bound the k of one pass. (1) Shader loops: llvmpipe silently ends every loop
// after a budget of iterations shared by all the loops of one invocation
// (DeviceInfo::max_loop_iterations, 65535), and each method's kernel iterates a known number
// of times per k. (2) Textures: the transform-feedback and fragment methods keep A and B in
// textures whose sides are at most GL_MAX_TEXTURE_SIZE. Past either, the product is summed
// from passes over slices of k, each a dispatch with a fresh loop budget.
#pragma once

#include <memory>

#include "gpgpu/context.hpp"
#include "gpgpu/matmul.hpp"
#include "matmul/matmul_backend.hpp"

namespace gpgpu::detail {

// The largest k one pass of `method` computes correctly on this device, a multiple of 64;
// 0 when k is unbounded. Counts every loop of the method's kernels as if the compiler
// unrolled none (an upper bound on the iterations llvmpipe counts).
int max_k_per_pass(MatmulMethod method, const MatmulTuning& tuning, const DeviceInfo& info);

// A backend that runs `pass` (made for m x k_pass x n) over consecutive slices of k:
// A's columns and B's rows of each slice are copied into zero-padded scratch Buffers, the
// first pass writes C and every later one adds its product into it. The float32 error bound
// is that of one pass of k plus one rounding per pass.
std::unique_ptr<MatmulBackend> make_split_k(const Context& context, MatmulShape shape, int k_pass,
                                            std::unique_ptr<MatmulBackend> pass);

}  // namespace gpgpu::detail
