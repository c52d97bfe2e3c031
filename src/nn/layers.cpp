// What each layer is: its name, its output shape and its parameters, for a sample shape.
#include "gpgpu/nn/layers.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::nn {

namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

std::size_t effective_stride(std::size_t size, std::size_t stride) {
  return stride == 0 ? size : stride;
}

std::string_view init_name(Init init) {
  switch (init) {
    case Init::He:
      return ", he init";
    case Init::Xavier:
      return ", xavier init";
    case Init::Auto:
      return "";
  }
  return "";
}

void require_image(const Layer& layer, const Shape& input) {
  if (input.rank() != 3) {
    throw ArgumentError(
        fmt::format("{} needs an image input (channels, height, width); got the shape {}",
                    layer_type(layer), input.to_string()));
  }
}

// Output extent of a window of `size` sliding by `stride` over `extent` (+ padding both sides).
std::size_t windows(const Layer& layer, std::size_t extent, std::size_t padding, std::size_t size,
                    std::size_t stride, const Shape& input) {
  if (size == 0 || stride == 0) {
    throw ArgumentError(fmt::format("{}: window size and stride must be positive (got {} and {})",
                                    layer_type(layer), size, stride));
  }
  if (extent + 2 * padding < size) {
    throw ArgumentError(fmt::format(
        "{}: a {}x{} window does not fit the input {} (with padding {}); use a smaller window "
        "or more padding",
        layer_type(layer), size, size, input.to_string(), padding));
  }
  return (extent + 2 * padding - size) / stride + 1;
}

Shape pool_shape(const Layer& layer, std::size_t size, std::size_t stride, const Shape& input) {
  require_image(layer, input);
  stride = effective_stride(size, stride);
  return {input[0], windows(layer, input[1], 0, size, stride, input),
          windows(layer, input[2], 0, size, stride, input)};
}

}  // namespace

std::string_view layer_type(const Layer& layer) {
  return std::visit(
      Overloaded{[](const Dense&) { return "dense"; }, [](const Conv2D&) { return "conv2d"; },
                 [](const MaxPool2D&) { return "maxpool2d"; },
                 [](const AvgPool2D&) { return "avgpool2d"; }, [](const ReLU&) { return "relu"; },
                 [](const Sigmoid&) { return "sigmoid"; }, [](const Tanh&) { return "tanh"; },
                 [](const Flatten&) { return "flatten"; }, [](const Dropout&) { return "dropout"; },
                 [](const BatchNorm&) { return "batchnorm"; },
                 [](const Softmax&) { return "softmax"; }},
      layer);
}

std::string describe(const Layer& layer) {
  return std::visit(
      Overloaded{
          [](const Dense& d) { return fmt::format("dense {}{}", d.units, init_name(d.init)); },
          [](const Conv2D& c) {
            return fmt::format("conv2d {} filters {}x{}, stride {}, padding {}{}", c.filters,
                               c.kernel, c.kernel, c.stride, c.padding, init_name(c.init));
          },
          [](const MaxPool2D& p) {
            return fmt::format("maxpool2d {}x{}, stride {}", p.size, p.size,
                               effective_stride(p.size, p.stride));
          },
          [](const AvgPool2D& p) {
            return fmt::format("avgpool2d {}x{}, stride {}", p.size, p.size,
                               effective_stride(p.size, p.stride));
          },
          [](const Dropout& d) { return fmt::format("dropout {}", d.rate); },
          [](const BatchNorm& b) {
            return fmt::format("batchnorm momentum {}, epsilon {}", b.momentum, b.epsilon);
          },
          [&](const auto&) { return std::string(layer_type(layer)); }},
      layer);
}

Shape output_shape(const Layer& layer, const Shape& input) {
  if (input.rank() == 0 || input.size() == 0) {
    throw ArgumentError(
        fmt::format("{}: empty input shape {}", layer_type(layer), input.to_string()));
  }
  return std::visit(
      Overloaded{
          [&](const Dense& d) -> Shape {
            if (input.rank() != 1) {
              throw ArgumentError(fmt::format(
                  "dense needs a (features) input; got the shape {}: add a flatten layer before it",
                  input.to_string()));
            }
            if (d.units == 0) throw ArgumentError("dense: units must be positive");
            return {d.units};
          },
          [&](const Conv2D& c) -> Shape {
            require_image(layer, input);
            if (c.filters == 0) throw ArgumentError("conv2d: filters must be positive");
            return {c.filters, windows(layer, input[1], c.padding, c.kernel, c.stride, input),
                    windows(layer, input[2], c.padding, c.kernel, c.stride, input)};
          },
          [&](const MaxPool2D& p) { return pool_shape(layer, p.size, p.stride, input); },
          [&](const AvgPool2D& p) { return pool_shape(layer, p.size, p.stride, input); },
          [&](const Flatten&) -> Shape { return {input.size()}; },
          [&](const Dropout& d) -> Shape {
            if (!(d.rate >= 0.0f && d.rate < 1.0f)) {
              throw ArgumentError(fmt::format("dropout: rate must be in [0, 1); got {}", d.rate));
            }
            return input;
          },
          [&](const BatchNorm& b) -> Shape {
            if (input.rank() != 1 && input.rank() != 3) {
              throw ArgumentError(fmt::format(
                  "batchnorm needs a (features) or (channels, height, width) input; got {}",
                  input.to_string()));
            }
            if (!(b.epsilon > 0.0f) || !(b.momentum >= 0.0f && b.momentum <= 1.0f)) {
              throw ArgumentError(fmt::format(
                  "batchnorm: epsilon must be positive and momentum in [0, 1]; got {} and {}",
                  b.epsilon, b.momentum));
            }
            return input;
          },
          [&](const Softmax&) -> Shape {
            if (input.rank() != 1) {
              throw ArgumentError(fmt::format("softmax needs a (features) input; got the shape {}",
                                              input.to_string()));
            }
            return input;
          },
          [&](const auto&) { return input; }},
      layer);
}

std::vector<ParameterSpec> parameter_specs(const Layer& layer, const Shape& input) {
  const Shape out = output_shape(layer, input);
  return std::visit(
      Overloaded{[&](const Dense& d) -> std::vector<ParameterSpec> {
                   return {{"weight", {d.units, input[0]}, true}, {"bias", {d.units}, true}};
                 },
                 [&](const Conv2D& c) -> std::vector<ParameterSpec> {
                   return {{"weight", {c.filters, input[0], c.kernel, c.kernel}, true},
                           {"bias", {c.filters}, true}};
                 },
                 [&](const BatchNorm&) -> std::vector<ParameterSpec> {
                   const std::size_t channels = input[0];
                   return {{"gamma", {channels}, true},
                           {"beta", {channels}, true},
                           {"running_mean", {channels}, false},
                           {"running_var", {channels}, false}};
                 },
                 [&](const auto&) { return std::vector<ParameterSpec>{}; }},
      layer);
}

}  // namespace gpgpu::nn
