// What each layer is: its name, its output shape and its parameters, for a sample shape.
#include "gpgpu/nn/layers.hpp"

#include <cmath>

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

std::string padding_text(const Padding& p) {
  if (p.top == p.left && p.top == p.bottom && p.top == p.right) {
    return fmt::format("padding {}", p.top);
  }
  return fmt::format("padding (top {}, left {}, bottom {}, right {})", p.top, p.left, p.bottom,
                     p.right);
}

// Output extent of a window of `size` sliding by `stride` over `extent` with `before` and
// `after` padding; with ceil_mode a last partial window is kept if it starts inside the
// input or its leading padding (PyTorch's rule, which ONNX Runtime follows).
std::size_t windows(const Layer& layer, std::size_t extent, std::size_t before, std::size_t after,
                    std::size_t size, std::size_t stride, bool ceil_mode, const Shape& input) {
  if (size == 0 || stride == 0) {
    throw ArgumentError(fmt::format("{}: window size and stride must be positive (got {} and {})",
                                    layer_type(layer), size, stride));
  }
  const std::size_t padded = extent + before + after;
  if (padded < size) {
    throw ArgumentError(fmt::format(
        "{}: a {}x{} window does not fit the input {} (with {} and {} padding); use a smaller "
        "window or more padding",
        layer_type(layer), size, size, input.to_string(), before, after));
  }
  std::size_t out = (padded - size) / stride + 1;
  if (ceil_mode && (padded - size) % stride != 0) {
    ++out;
    if ((out - 1) * stride >= extent + before) --out;
  }
  return out;
}

Shape pool_shape(const Layer& layer, std::size_t size, std::size_t stride, const Padding& pad,
                 bool ceil_mode, const Shape& input) {
  require_image(layer, input);
  for (std::size_t side : {pad.top, pad.left, pad.bottom, pad.right}) {
    if (side >= size) {
      throw ArgumentError(
          fmt::format("{}: {} is as large as the {}x{} window; every window must cover some input",
                      layer_type(layer), padding_text(pad), size, size));
    }
  }
  stride = effective_stride(size, stride);
  return {input[0], windows(layer, input[1], pad.top, pad.bottom, size, stride, ceil_mode, input),
          windows(layer, input[2], pad.left, pad.right, size, stride, ceil_mode, input)};
}

template <class Pool>
std::string pool_text(const Pool& p) {
  std::string text =
      fmt::format("{}x{}, stride {}", p.size, p.size, effective_stride(p.size, p.stride));
  const Padding pad = padding_of(p);
  if (pad != Padding{}) text += ", " + padding_text(pad);
  if (p.ceil_mode) text += ", ceil mode";
  return text;
}

void require_finite(const Layer& layer, float value, const char* what) {
  if (!std::isfinite(value)) {
    throw ArgumentError(
        fmt::format("{}: {} must be a finite number; got {}", layer_type(layer), what, value));
  }
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
                 [](const Softmax&) { return "softmax"; },
                 [](const LeakyReLU&) { return "leakyrelu"; }, [](const Clip&) { return "clip"; },
                 [](const GlobalAvgPool2D&) { return "globalavgpool2d"; }},
      layer);
}

std::string describe(const Layer& layer) {
  return std::visit(
      Overloaded{
          [](const Dense& d) { return fmt::format("dense {}{}", d.units, init_name(d.init)); },
          [](const Conv2D& c) {
            return fmt::format("conv2d {} filters {}x{}, stride {}, {}{}", c.filters, c.kernel,
                               c.kernel, c.stride, padding_text(padding_of(c)), init_name(c.init));
          },
          [](const MaxPool2D& p) { return "maxpool2d " + pool_text(p); },
          [](const AvgPool2D& p) {
            const bool exclude = !p.count_include_pad && padding_of(p) != Padding{};
            return "avgpool2d " + pool_text(p) + (exclude ? ", padding not counted" : "");
          },
          [](const LeakyReLU& l) { return fmt::format("leakyrelu alpha {}", l.alpha); },
          [](const Clip& c) { return fmt::format("clip [{}, {}]", c.min, c.max); },
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
            const Padding p = padding_of(c);
            return {c.filters,
                    windows(layer, input[1], p.top, p.bottom, c.kernel, c.stride, false, input),
                    windows(layer, input[2], p.left, p.right, c.kernel, c.stride, false, input)};
          },
          [&](const MaxPool2D& p) {
            return pool_shape(layer, p.size, p.stride, padding_of(p), p.ceil_mode, input);
          },
          [&](const AvgPool2D& p) {
            return pool_shape(layer, p.size, p.stride, padding_of(p), p.ceil_mode, input);
          },
          [&](const GlobalAvgPool2D&) -> Shape {
            require_image(layer, input);
            return {input[0], 1, 1};
          },
          [&](const LeakyReLU& l) -> Shape {
            require_finite(layer, l.alpha, "alpha");
            if (l.alpha < 0.0f) {
              throw ArgumentError(
                  fmt::format("leakyrelu: alpha must be >= 0 (the backward pass reads the sign "
                              "of the output); got {}",
                              l.alpha));
            }
            return input;
          },
          [&](const Clip& c) -> Shape {
            require_finite(layer, c.min, "min");
            require_finite(layer, c.max, "max");
            if (!(c.min < c.max)) {
              throw ArgumentError(
                  fmt::format("clip: min must be below max; got [{}, {}]", c.min, c.max));
            }
            return input;
          },
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

Padding padding_of(const Conv2D& conv) {
  const std::size_t p = conv.padding;
  return conv.pads.value_or(Padding{p, p, p, p});
}
Padding padding_of(const MaxPool2D& pool) {
  const std::size_t p = pool.padding;
  return pool.pads.value_or(Padding{p, p, p, p});
}
Padding padding_of(const AvgPool2D& pool) {
  const std::size_t p = pool.padding;
  return pool.pads.value_or(Padding{p, p, p, p});
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
