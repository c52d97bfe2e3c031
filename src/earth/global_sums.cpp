// global_sums: gpgpu::reduce over vec4 elements.
#include "earth/global_sums.hpp"

#include "gpgpu/primitives.hpp"

namespace gpgpu::earth::detail {

std::array<double, 4> global_sums(const Context& context, const Buffer& values, std::size_t count) {
  const auto s = reduce_vector<float>(context, values, 4, Op::Sum, {0, count});
  return {s[0], s[1], s[2], s[3]};
}

}  // namespace gpgpu::earth::detail
