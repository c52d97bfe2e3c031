// gpgpu/nn/onnx.hpp — networks in and out of ONNX, the format PyTorch's torch.onnx.export,
// tf2onnx, ONNX Runtime and OpenCV's DNN module share.
//
//   gpgpu::nn::Sequential model = gpgpu::nn::load_onnx(ctx, "cnn.onnx");  // from PyTorch
//   gpgpu::nn::Tensor logits = model.forward(images);                     // any backend
//   gpgpu::nn::save_onnx(model, "out/cnn.onnx");                          // and back out
//   auto any = gpgpu::nn::load_any(ctx, path);  // .onnx: load_onnx; else load_model
//
// A Sequential is one chain of layers, so an ONNX graph is read as one: every node takes
// the previous node's output (plus constants), from the graph's one input to its one
// output. Each operator becomes gpgpu::nn layers (docs/onnx.md has the table):
//   Conv (group 1, dilations 1, pads, strides, auto_pad), MaxPool, AveragePool (pads,
//   strides, ceil_mode, count_include_pad), GlobalAveragePool, Gemm, MatMul, Relu,
//   LeakyRelu, Sigmoid, Tanh, Clip, Softmax, BatchNormalization, Flatten, Reshape and
//   Squeeze to (batch, features), Dropout (no stage in evaluation), Identity, Add, Sub,
//   Mul and Div by a constant (scalar or per channel: folded into the neighbouring Conv or
//   Gemm, else a BatchNorm layer that computes the same affine map in evaluation), Transpose
//   to and from NHWC where tf2onnx puts it (at the input; before the flatten of a dense layer),
//   and the Shape, Gather, Unsqueeze, Concat, Cast and Constant nodes exporters use to
//   compute a reshape's target.
// A BatchNormalization right after a Conv or Gemm is folded into its weights by default
// (OnnxOptions::fold_batchnorm). Opsets 7 to 17 of the default domain are read.
//
// ERRORS. A file protobuf cannot parse, or that onnx::checker rejects, is a FormatError
// naming the file and what is wrong. An operator, attribute or graph shape outside the set
// is an UnsupportedError naming the node (its index in the graph, its name and operator)
// and what is missing, e.g.
//   cnn.onnx: node 4 'conv2' (Conv): attribute group = 2; gpgpu's Conv2D has group 1
// Branches (a residual Add, a Concat of two paths) are refused the same way: a Sequential
// has no second path to join.
//
// save_onnx writes opset 13: Conv, Gemm, MaxPool, AveragePool, GlobalAveragePool, Relu,
// LeakyRelu, Clip, Sigmoid, Tanh, Flatten, Dropout, BatchNormalization, Softmax, with the
// normalisation and class names as metadata_props (gpgpu.normalization, gpgpu.classes)
// that load_onnx reads back. Writing is atomic (a temporary file beside the target,
// renamed into place).
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "gpgpu/context.hpp"
#include "gpgpu/nn/model.hpp"

namespace gpgpu::nn {

// How load_onnx and read_onnx turn an ONNX graph into layers.
struct OnnxOptions {
  // Fold a BatchNormalization that directly follows a Conv or Gemm into its weights and
  // bias (in float64, rounded once): one stage less, and the same outputs to float32
  // rounding. false keeps it as a BatchNorm layer (trainable, bit-identical round trips).
  bool fold_batchnorm = true;
};

// Reads an ONNX file as a model (parameters set; the Compute backend, as load_model).
Sequential load_onnx(const Context& context, const std::filesystem::path& path,
                     const OnnxOptions& options = {});
// The same from the bytes of a file; `origin` names them in errors.
Sequential read_onnx(const Context& context, std::span<const std::byte> bytes,
                     std::string_view origin = "ONNX model", const OnnxOptions& options = {});

// Writes `model` as an ONNX file (opset 13), checked by onnx::checker first.
void save_onnx(const Sequential& model, const std::filesystem::path& path);
// The bytes save_onnx writes.
std::string onnx_bytes(const Sequential& model);

// load_onnx for a path ending in .onnx, load_model (a directory or .npz) otherwise.
Sequential load_any(const Context& context, const std::filesystem::path& path);

}  // namespace gpgpu::nn
