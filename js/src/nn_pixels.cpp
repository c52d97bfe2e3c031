#include "nn_pixels.hpp"

namespace gpgpu::web {

std::vector<float> normalized_pixels(std::span<const std::uint8_t> pixels,
                                     nn::Normalization normalization) {
  std::vector<float> out(pixels.size());
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    const float p = static_cast<float>(pixels[i]) / 255.0f;
    out[i] = (p - normalization.mean) / normalization.stddev;
  }
  return out;
}

}  // namespace gpgpu::web
