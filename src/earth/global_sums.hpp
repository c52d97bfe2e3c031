// Global sums of per-cell vec4 values on the GPU. The one place the earth module reduces:
// today its own work-group kernel (float32 partials of 2048 values, finished in float64 on
// the host); to be switched to gpgpu's reduction primitive when the library has one.
#pragma once

#include <array>
#include <memory>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"

namespace gpgpu::earth::detail {

class GlobalSummer {
 public:
  explicit GlobalSummer(const Context& context);
  // The sums of the first `count` vec4 of `values` (a Float32 Buffer of >= 4 count floats),
  // component by component. Waits for the GPU.
  std::array<double, 4> sum(const Buffer& values, std::size_t count);

 private:
  const Context* context_;
  ComputeKernel kernel_;
  Buffer partial_;
};

}  // namespace gpgpu::earth::detail
