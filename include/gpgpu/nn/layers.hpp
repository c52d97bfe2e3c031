// gpgpu/nn/layers.hpp — the layers a Sequential model is made of.
//
//   model.add(gpgpu::nn::Conv2D{.filters = 32, .kernel = 5, .padding = 2});
//   model.add(gpgpu::nn::ReLU{});
//   model.add(gpgpu::nn::MaxPool2D{.size = 2});
//   model.add(gpgpu::nn::Flatten{});
//   model.add(gpgpu::nn::Dense{.units = 10});
//
// A layer is a plain description (a struct of settings); the model turns it into kernels
// for its backend. Every layer runs forward, backward and (for its parameters) the update
// on the device. Shapes are per sample (no batch extent): images (C, H, W), features (F).
//
//   layer       input -> output                         parameters (saved as, PyTorch's layout)
//   Dense       (F) -> (units)                          weight (units, F), bias (units)
//   Conv2D      (C, H, W) -> (filters, H', W')          weight (filters, C, k, k), bias (filters)
//               H' = (H + top + bottom - kernel) / stride + 1 (rounded down), likewise W'
//   MaxPool2D   (C, H, W) -> (C, H', W')                H' = (H + top + bottom - size) / stride +
//   1,
//               rounded down, or up with ceil_mode (then less one if that last window would
//               start below the input and its bottom padding, as in PyTorch)
//   AvgPool2D   as MaxPool2D, the mean of each window
//   GlobalAvgPool2D  (C, H, W) -> (C, 1, 1), the mean of each plane
//   ReLU, Sigmoid, Tanh, LeakyReLU, Clip, Dropout   any shape, unchanged
//   Flatten     (C, H, W) -> (C H W)
//   BatchNorm   (C, H, W) per channel, or (F) per feature; gamma, beta (trainable) and
//               running_mean, running_var (not trained; updated in training mode)
//   Softmax     (F) -> (F), probabilities over the features
//
// Convolutions are cross-correlations with zero padding, as in PyTorch and TensorFlow.
// Padding is `padding` zeros on every side, or per side with `pads` (as ONNX and
// TensorFlow's "same" padding of even kernels need). Pooling windows skip their padding:
// a maximum is taken over the input values a window covers; a mean divides by the
// positions it covers within the padded input (count_include_pad, PyTorch's default) or
// within the input only (ONNX's default), the window cut at the padded input's edge.
// LeakyReLU is x for x > 0, else alpha x (alpha >= 0); Clip is min(max(x, min), max)
// (ReLU6: Clip{0, 6}).
// Dropout scales kept values by 1 / (1 - rate) in training and is the identity in
// evaluation. BatchNorm normalises with the batch's mean and biased variance in training
// (and updates running = (1 - momentum) running + momentum batch, the variance unbiased),
// and with the running statistics in evaluation. A Softmax as the last layer is fused with
// the cross-entropy loss in training (the gradient is p - onehot), and gives probabilities
// in prediction; without it the model's outputs are logits and the loss applies softmax.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gpgpu/nn/tensor.hpp"

namespace gpgpu::nn {

// How the weights of Dense and Conv2D start (biases start at zero):
//   He      normal, standard deviation sqrt(2 / fan_in) (for ReLU networks)
//   Xavier  uniform in +-sqrt(6 / (fan_in + fan_out)) (Glorot; for tanh and sigmoid)
//   Auto    He when the next layer is a ReLU, LeakyReLU or Clip (directly or after
//           BatchNorm), else Xavier
// fan_in = inputs per output (C k k for a convolution), fan_out = outputs per input.
enum class Init { Auto, He, Xavier };

// A fully connected layer: y = W x + b over a feature vector.
struct Dense {
  std::size_t units = 0;   // outputs
  Init init = Init::Auto;  // how the weights start
};

// Rows of zeros added above and below an image, columns left and right of it (ONNX's
// per-side pads).
struct Padding {
  // @{
  // Zero rows (top, bottom) or columns (left, right) on that side of the image.
  std::size_t top = 0, left = 0, bottom = 0, right = 0;
  // @}
  bool operator==(const Padding&) const = default;  // equal when all four sides are
};

// A 2-D convolution over (C, H, W) samples, with a bias per filter.
struct Conv2D {
  std::size_t filters = 0;  // output channels
  std::size_t kernel = 3;  // square kernels: kernel x kernel
  std::size_t stride = 1;   // pixels between windows
  std::size_t padding = 0;  // zeros on every side
  Init init = Init::Auto;   // how the weights start
  std::optional<Padding> pads = std::nullopt;  // zeros per side, instead of `padding`
};

// The maximum of each window, per channel.
struct MaxPool2D {
  std::size_t size = 2;                        // square windows
  std::size_t stride = 0;                      // 0: the same as size (non-overlapping windows)
  std::size_t padding = 0;                     // on every side; each side's padding must be < size
  std::optional<Padding> pads = std::nullopt;  // per side, instead of `padding`
  bool ceil_mode = false;  // round the output extent up (a last, partial window)
};

// The mean of each window, per channel.
struct AvgPool2D {
  std::size_t size = 2;                        // square windows
  std::size_t stride = 0;                      // 0: the same as size
  std::size_t padding = 0;                     // on every side; each side's padding must be < size
  std::optional<Padding> pads = std::nullopt;  // per side, instead of `padding`
  bool ceil_mode = false;         // round the output extent up (a last, partial window)
  bool count_include_pad = true;  // divide by the window's positions in the padded input
};

struct GlobalAvgPool2D {};

struct ReLU {};
struct Sigmoid {};
struct Tanh {};
struct Flatten {};

// max(x, alpha x): ReLU with a slope for negative values.
struct LeakyReLU {
  float alpha = 0.01f;  // the slope for x <= 0, >= 0
};

// min(max(x, min), max); Clip{0, 6} is ReLU6.
struct Clip {
  float min = 0.0f;  // finite, min < max
  float max = 6.0f;  // finite, > min
};

// Zeroes a random fraction of the values in training (scaling the others by 1 / (1 - rate));
// passes them through in evaluation.
struct Dropout {
  float rate = 0.5f;  // the fraction of values zeroed in training, in [0, 1)
};

// Batch normalisation per channel (per feature after Dense), with a learnt scale (gamma) and
// shift (beta).
struct BatchNorm {
  float momentum = 0.1f;  // weight of the batch statistics in the running ones
  float epsilon = 1e-5f;  // added to the variance
};

struct Softmax {};

// Any of the layers above (the element-wise ReLU, Sigmoid, Tanh and the Flatten and Softmax
// layers have no settings).
using Layer = std::variant<Dense, Conv2D, MaxPool2D, AvgPool2D, ReLU, Sigmoid, Tanh, Flatten,
                           Dropout, BatchNorm, Softmax, LeakyReLU, Clip, GlobalAvgPool2D>;

// The layer's type name as JSON and summaries spell it: "dense", "conv2d", "maxpool2d",
// "avgpool2d", "relu", "sigmoid", "tanh", "flatten", "dropout", "batchnorm", "softmax",
// "leakyrelu", "clip", "globalavgpool2d".
std::string_view layer_type(const Layer& layer);
// A one-line description: "conv2d 32 filters 5x5, stride 1, padding 2".
std::string describe(const Layer& layer);

// The padding a layer applies: `pads` where set, else `padding` on every side.
// @{
Padding padding_of(const Conv2D& conv);
Padding padding_of(const MaxPool2D& pool);
Padding padding_of(const AvgPool2D& pool);
// @}

// The per-sample output shape of `layer` for a per-sample `input` shape. Throws
// ArgumentError saying what the layer needs (a rank, a minimum size) when it does not fit.
Shape output_shape(const Layer& layer, const Shape& input);

// One parameter array of a layer.
struct ParameterSpec {
  std::string name;  // "weight", "bias", "gamma", "beta", "running_mean", "running_var"
  Shape shape;       // its dimensions
  bool trainable = true;  // false for BatchNorm's running statistics
};
// The parameters `layer` has for a per-sample `input` shape, in storage order.
std::vector<ParameterSpec> parameter_specs(const Layer& layer, const Shape& input);

}  // namespace gpgpu::nn
