// Internal: what an ONNX graph becomes before it is a Sequential — a chain of steps, each a
// gpgpu::nn layer with its parameters (in float64, PyTorch's layouts) or a constant affine
// map still to be folded into a neighbour — and the folding passes (fold.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "gpgpu/nn/data.hpp"
#include "gpgpu/nn/layers.hpp"

namespace gpgpu::nn::onnx_detail {

// y = x scale + shift, per channel of an image or per feature of a vector; a vector of one
// value applies to every element.
struct Affine {
  std::vector<double> scale{1.0}, shift{0.0};
};

struct Step {
  std::variant<Layer, Affine> what;
  // A layer's parameters in parameter_specs order (weight, bias; gamma, beta, mean, var).
  std::vector<std::vector<double>> params;
  Shape in;            // the per-sample shape it takes
  std::string origin;  // the node it comes from, for messages
  const Layer* layer() const { return std::get_if<Layer>(&what); }
};

// The network a graph describes, ready to become a Sequential.
struct Network {
  Shape input;
  std::vector<Layer> layers;
  std::vector<std::vector<float>> params;  // per layer, its parameters concatenated
  Normalization normalization;
  std::vector<std::string> class_names;
};

// Folds the affine maps and (with fold_batchnorm) the BatchNorm layers that follow a Conv2D
// or Dense into that layer; an affine map with no neighbour to take it becomes a BatchNorm
// layer computing the same map in evaluation. Returns the layers and their parameters.
void fold_steps(std::vector<Step> steps, bool fold_batchnorm, Network& network);

}  // namespace gpgpu::nn::onnx_detail
