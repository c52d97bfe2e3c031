// GlobalSummer: per-work-group float32 partial sums on the GPU, finished in float64.
#include "earth/global_sums.hpp"

#include <vector>

#include "earth/model_kernels.hpp"

namespace gpgpu::earth::detail {

GlobalSummer::GlobalSummer(const Context& context)
    : context_(&context), kernel_(context, reduce_kernel_source(), {}, "earth global sums") {}

std::array<double, 4> GlobalSummer::sum(const Buffer& values, std::size_t count) {
  constexpr std::size_t per_group = static_cast<std::size_t>(reduce_group) * reduce_per_thread;
  const std::size_t groups = (count + per_group - 1) / per_group;
  if (!partial_.valid() || partial_.size() < 4 * groups) {
    partial_ = Buffer(*context_, ElementType::Float32, 4 * groups);
  }
  kernel_.run_groups(
      {{"values", values}, {"partial", partial_}, {"count", static_cast<std::uint32_t>(count)}},
      {groups, 1, 1});
  std::vector<float> host(4 * groups);
  partial_.download(std::span<float>(host));
  std::array<double, 4> total{};
  for (std::size_t g = 0; g < groups; ++g) {
    for (int c = 0; c < 4; ++c) total[c] += static_cast<double>(host[4 * g + c]);
  }
  return total;
}

}  // namespace gpgpu::earth::detail
