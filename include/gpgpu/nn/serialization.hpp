// gpgpu/nn/serialization.hpp — saving and loading models, and networks described in JSON.
//
//   gpgpu::nn::save_model(model, "out/model");       // a directory
//   gpgpu::nn::save_model(model, "out/model.npz");   // or one NumPy .npz archive
//   auto again = gpgpu::nn::load_model(ctx, "out/model");
//   auto net = gpgpu::nn::model_from_json(ctx, R"({"input": [1, 28, 28], "layers": [
//       {"type": "conv2d", "filters": 8, "kernel": 5}, {"type": "relu"},
//       {"type": "maxpool2d", "size": 2}, {"type": "flatten"}, {"type": "dense", "units": 10}]})");
//
// THE FORMAT (version 1). A model is a directory (or a .npz: a zip archive of the same files,
// stored uncompressed, which numpy.load opens) holding
//   model.json        {"format": "gpgpu-nn", "version": 1,
//                      "input": [C, H, W] or [F],
//                      "layers": [{"type": "conv2d", "filters": 32, "kernel": 5, "stride": 1,
//                                  "padding": 2}, {"type": "relu"}, ...],
//                      "normalization": {"mean": m, "std": s},
//                      "classes": ["T-shirt/top", ...]                  (optional),
//                      "parameters": [{"key": "00_conv2d.weight", "shape": [32, 1, 5, 5],
//                                      "trainable": true}, ...]}
//   KEY.npy           one float32 array per parameter, named by its key: the layer index
//                     (two digits), the layer type and the parameter name, in PyTorch's
//                     layouts: conv weight (out, in, k, k), dense weight (out, in), BatchNorm
//                     gamma, beta, running_mean, running_var (C).
// Layer keys in JSON: dense {units, init}; conv2d {filters, kernel, stride, padding, pads,
// init}; maxpool2d {size, stride, padding, pads, ceil_mode}; avgpool2d {the same,
// count_include_pad}; leakyrelu {alpha}; clip {min, max}; dropout {rate}; batchnorm
// {momentum, epsilon}; globalavgpool2d, relu, sigmoid, tanh, flatten, softmax {}. "pads" is
// [top, left, bottom, right] (written where the sides differ). Omitted keys take the
// defaults of layers.hpp.
//
// Writing is all or nothing: the files go to a temporary directory (or file) beside the
// target, which is renamed into place at the end. Loading checks everything (every array
// present, of the shape model.json and the layers imply, float32) and throws FormatError
// naming the file and the mismatch.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "gpgpu/context.hpp"
#include "gpgpu/nn/model.hpp"

namespace gpgpu::nn {

// Saves architecture, normalisation, class names and parameters. A path ending in .npz is
// an archive; anything else a directory (replaced if it exists and holds a model.json).
void save_model(const Sequential& model, const std::filesystem::path& path);
// Loads what save_model wrote. The model starts on the Compute backend.
Sequential load_model(const Context& context, const std::filesystem::path& path);

// The architecture (input, layers, normalisation, classes) as JSON text.
std::string architecture_json(const Sequential& model);
// A model from JSON text in the model.json format ("format", "version" and "parameters" are
// optional here); parameters are not initialised. `origin` names the text in errors.
// Throws FormatError naming the layer index and key for anything unknown or ill-typed.
Sequential model_from_json(const Context& context, std::string_view json,
                           std::string_view origin = "JSON");
// model_from_json of a file's contents.
Sequential load_architecture(const Context& context, const std::filesystem::path& json_file);

}  // namespace gpgpu::nn
