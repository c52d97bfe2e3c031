// Images as gpgpu::nn models take them, from bytes: p / 255, then (p - mean) / stddev with
// the model's normalisation, in float32. Shared by the browser module (js_nn.cpp) and the
// native reference the browser tests compare with (tests/browser/nn_reference.cpp), so that
// both feed the network the very same floats.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <gpgpu/nn/data.hpp>

namespace gpgpu::web {

std::vector<float> normalized_pixels(std::span<const std::uint8_t> pixels,
                                     nn::Normalization normalization);

}  // namespace gpgpu::web
