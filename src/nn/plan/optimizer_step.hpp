// Internal: what every backend's Adam update needs from the step count, computed once on
// the host in float64 (PyTorch's bias corrections).
#pragma once

#include <cmath>
#include <cstddef>

#include "gpgpu/nn/optimizers.hpp"

namespace gpgpu::nn::detail {

struct AdamCorrections {
  float first;   // 1 / (1 - beta1^t)
  float second;  // 1 / (1 - beta2^t)
};

inline AdamCorrections adam_corrections(const Adam& adam, std::size_t step) {
  const auto t = static_cast<double>(step);
  return {static_cast<float>(1.0 / (1.0 - std::pow(static_cast<double>(adam.beta1), t))),
          static_cast<float>(1.0 / (1.0 - std::pow(static_cast<double>(adam.beta2), t)))};
}

}  // namespace gpgpu::nn::detail
