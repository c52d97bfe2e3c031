// Internal: a Sequential as an ONNX ModelProto (opset 13), checked by onnx::checker.
#pragma once

#include <onnx/onnx_pb.h>

#include "gpgpu/nn/model.hpp"

namespace gpgpu::nn::onnx_detail {

::onnx::ModelProto export_model(const Sequential& model);

}  // namespace gpgpu::nn::onnx_detail
