// Global sums of per-cell vec4 values on the GPU: the one place the earth module reduces,
// through gpgpu's reduction primitive (gpgpu/primitives.hpp).
#pragma once

#include <array>
#include <cstddef>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"

namespace gpgpu::earth::detail {

// The sums of the first `count` vec4 of `values` (a Float32 Buffer of >= 4 count floats),
// component by component. Waits for the GPU. Each sum errs by at most
// reduce_error_depth(count, 4) * 2^-24 times the sum of its terms' magnitudes.
std::array<double, 4> global_sums(const Context& context, const Buffer& values, std::size_t count);

}  // namespace gpgpu::earth::detail
