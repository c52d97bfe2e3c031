// Shared by the primitives' tests: the sizes every primitive is tested at, poisoned output
// Buffers, and float64 references.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "test_support.hpp"

namespace gpgpu::test {

// 1, 2, edges of 256-wide work groups, 2^k +- 1, a prime near 10^6.
inline std::vector<std::size_t> edge_sizes() {
  return {1, 2, 3, 5, 255, 256, 257, 1023, 1025, 4097, 65535, 65537, 999983, 1000003};
}

// Elements of 4 bytes the device binds to one storage block, and allocates three times over
// (a test's input, output and the primitive's own scratch): a driver may bind more than it
// can allocate (zink on NVIDIA's Vulkan driver: 4 GiB blocks, GL_OUT_OF_MEMORY for them),
// and then the largest size it allocates is the one tested.
inline std::size_t largest_bindable(const Context& ctx) {
  const auto bindable = static_cast<std::size_t>(ctx.info().max_shader_storage_block_size) / 4;
  static std::map<std::pair<std::string, std::size_t>, std::size_t> found;  // per device
  auto& n = found[{ctx.info().renderer, bindable}];
  if (n != 0) return n;
  for (n = bindable; n > 1; n /= 2) {
    try {
      Buffer a(ctx, ElementType::Float32, n), b(ctx, ElementType::Float32, n),
          c(ctx, ElementType::Float32, n);
      return n;
    } catch (const OutOfMemoryError&) {
    }
  }
  return n;
}

// A size past 65,535 work groups of 256 invocations (llvmpipe's silent loop cap and the
// work-group count limit would both show there), capped by what the device binds.
inline std::size_t past_loop_cap(const Context& ctx) {
  return std::min<std::size_t>(65535u * 256u + 4099u, largest_bindable(ctx));
}

template <class T>
T poison();
template <>
inline float poison<float>() {
  return poison_float();
}
template <>
inline std::int32_t poison<std::int32_t>() {
  return poison_int;
}
template <>
inline std::uint32_t poison<std::uint32_t>() {
  return poison_uint;
}

// A device Buffer of n poison values.
template <class T>
Buffer poisoned(const Context& ctx, std::size_t n) {
  return Buffer::from(ctx, std::vector<T>(n, poison<T>()));
}

// Checks reduce's float sum of `x` (uploaded as `b`) against the float64 sum: within
// (d + 1) * 2^-24 * sum |x| (d: reduce_error_depth; + 1 for rounding the float64 sum), and
// its max against the largest element, exactly.
inline void expect_sum_and_max(const Context& ctx, const Buffer& b, const std::vector<float>& x) {
  double exact = 0, magnitude = 0;
  for (float v : x) exact += v, magnitude += std::fabs(v);
  EXPECT_LE(std::fabs(reduce<float>(ctx, b) - exact),
            (reduce_error_depth(ctx, x.size()) + 1) * eps32 * magnitude);
  EXPECT_EQ(reduce<float>(ctx, b, Op::Max), *std::max_element(x.begin(), x.end()));
}

template <class T>
bool same_bits(T a, T b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

}  // namespace gpgpu::test
