// Internal: an ONNX file's bytes to the network they describe (steps.hpp's Network), with no
// GL: parse (protobuf), check the opset and operators, onnx::checker, the walk over the graph,
// ONNX's shape inference compared with the layers' shapes (only on a graph the walk accepted:
// ONNX 1.12's inference crashes on some malformed ones), folding, and the metadata gpgpu
// writes (normalisation, class names). The fuzz target calls this directly.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "gpgpu/nn/onnx.hpp"
#include "steps.hpp"

namespace gpgpu::nn::onnx_detail {

Network import_network(std::span<const std::byte> bytes, const std::string& origin,
                       const OnnxOptions& options);

}  // namespace gpgpu::nn::onnx_detail
