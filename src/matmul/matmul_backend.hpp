// Internal: one way of computing C = A · B on device-resident float32 Buffers.
//
// MatmulPlan checks every argument before it reaches a backend, so a backend may assume
// m, k, n > 0 and operands of the right size: either float32 Buffers of at least m*k, k*n
// and m*n elements from its Context, or host arrays of exactly that many (c with
// Access::Write, so it is downloaded and never uploaded).
#pragma once

#include <memory>

#include "gpgpu/arg.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/matmul.hpp"

namespace gpgpu::detail {

struct MatmulShape {
  int m = 0, k = 0, n = 0;
};

class MatmulBackend {
 public:
  virtual ~MatmulBackend() = default;
  virtual void run(const Arg& a, const Arg& b, const Arg& c) = 0;
  virtual void set_timing(bool enabled) = 0;
  // GPU nanoseconds of the last run's kernel, or -1.
  virtual double last_gpu_ns() const = 0;
};

// The compute-shader backends (compute_naive.cpp, compute_tiled.cpp,
// compute_register_blocked.cpp). Each compiles its kernel in the constructor.
std::unique_ptr<MatmulBackend> make_compute_naive(const Context& context, MatmulShape shape);
std::unique_ptr<MatmulBackend> make_compute_tiled(const Context& context, MatmulShape shape,
                                                  const MatmulTuning& tuning);
std::unique_ptr<MatmulBackend> make_compute_register_blocked(const Context& context,
                                                             MatmulShape shape,
                                                             const MatmulTuning& tuning);

}  // namespace gpgpu::detail
