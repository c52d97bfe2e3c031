// Internal: one way of computing C = A · B on device-resident float32 Buffers.
//
// MatmulPlan checks every argument before it reaches a backend, so a backend may assume
// m, k, n > 0 and operands of the right size: either float32 Buffers of at least m*k, k*n
// and m*n elements from its Context, or host arrays of exactly that many (c with
// Access::Write, so it is downloaded and never uploaded).
#pragma once

#include <memory>
#include <string>

#include "gpgpu/arg.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/matmul.hpp"
#include "gpgpu/pending_run.hpp"

namespace gpgpu::detail {

struct MatmulShape {
  int m = 0, k = 0, n = 0;
};

class MatmulBackend {
 public:
  virtual ~MatmulBackend() = default;
  virtual void run(const Arg& a, const Arg& b, const Arg& c) = 0;
  // The same, returning once everything is issued; a host c is written by the handle's
  // wait(). Backends that cannot do better run synchronously.
  virtual PendingRun run_async(const Arg& a, const Arg& b, const Arg& c) {
    run(a, b, c);
    return {};
  }
  virtual void set_timing(bool enabled) = 0;
  // GPU nanoseconds of the last run's kernel, or -1.
  virtual double last_gpu_ns() const = 0;
};

// The split-K MatmulMethod::Auto gives tuning `t` for an m x k x n product on `device`
// (MatmulTuning::for_shape): 1 unless C has fewer tiles than the device compute units.
int auto_split_k(const MatmulTuning& t, const DeviceInfo& device, int m, int k, int n);
// The ComputeTiled method's tile: 16, or the largest power of two the device's work groups
// and shared memory hold when 16 x 16 does not fit.
int default_tile(const DeviceInfo& device);
// Rows of the 16-wide work groups of the element-per-invocation kernels (compute_naive,
// operand packing): 16, or 8 where the device's work groups hold fewer than 256 invocations.
int group_rows_of_16(const DeviceInfo& device);

// The compute-shader backends (compute_naive.cpp, compute_tiled.cpp,
// compute_register_blocked.cpp). Each compiles its kernel in the constructor.
std::unique_ptr<MatmulBackend> make_compute_naive(const Context& context, MatmulShape shape);
std::unique_ptr<MatmulBackend> make_compute_tiled(const Context& context, MatmulShape shape,
                                                  const MatmulTuning& tuning);
std::unique_ptr<MatmulBackend> make_compute_register_blocked(const Context& context,
                                                             MatmulShape shape,
                                                             const MatmulTuning& tuning);
// The main kernel make_compute_register_blocked compiles for `tuning` (so that an
// autotuner can compile its candidates together first: gpgpu::precompile).
KernelSource register_blocked_kernel(const Context& context, MatmulShape shape,
                                     const MatmulTuning& tuning);

// The transform-feedback backends (transform_feedback_matmul.cpp): operands packed into
// textures, products captured from a vertex shader and gathered into C.
std::unique_ptr<MatmulBackend> make_transform_feedback_texture(const Context& context,
                                                               MatmulShape shape);
std::unique_ptr<MatmulBackend> make_transform_feedback_vec4(const Context& context,
                                                            MatmulShape shape);
std::unique_ptr<MatmulBackend> make_transform_feedback_blocked(const Context& context,
                                                               MatmulShape shape);

// The host's BLAS (host_blas.cpp): cblas_sgemm from a library found at run time (OpenBLAS,
// else the system's libcblas/libblas). Throws UnsupportedError when none is found.
std::unique_ptr<MatmulBackend> make_host_blas(const Context& context, MatmulShape shape);

// The fragment backends (fragment_matmul.cpp): products rendered into float textures.
std::unique_ptr<MatmulBackend> make_fragment_naive(const Context& context, MatmulShape shape);
std::unique_ptr<MatmulBackend> make_fragment_packed(const Context& context, MatmulShape shape);

// GLSL shared by TransformFeedbackBlocked and FragmentPacked: uniforms A, B (RGBA32F, 4
// consecutive k per texel of A, 4 consecutive columns per texel of B, zero-padded to whole
// 4x4 blocks), K4, and multiply_block(x, y, c0..c3), the 4x4 block of C at column group
// x, row group y, one vec4 per row.
const char* matmul_blocked_body_glsl();

}  // namespace gpgpu::detail
