// The handlers of the operators with parameters or windows: Conv, MaxPool, AveragePool,
// GlobalAveragePool, Gemm, MatMul and BatchNormalization (graph_reader.hpp).
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpgpu/error.hpp"
#include "graph_reader.hpp"

namespace gpgpu::nn::onnx_detail {

namespace {

void require_image(GraphReader& r, const Node& node) {
  if (r.shape().rank() != 3 || r.channels_last()) {
    r.refuse(node, fmt::format("it needs an image (batch, channels, height, width); the layers "
                               "before give (batch, {})",
                               fmt::join(r.shape().dims(), ", ")));
  }
}

void require_vector(GraphReader& r, const Node& node) {
  if (r.shape().rank() != 1) {
    r.refuse(node, fmt::format("it needs (batch, features); the layers before give (batch, {}) "
                               "(a Flatten or Reshape goes first)",
                               fmt::join(r.shape().dims(), ", ")));
  }
}

// One extent of a square window attribute pair ("kernel_shape 3x5 is not square").
std::size_t square(GraphReader& r, const Node& node, const std::vector<std::int64_t>& v,
                   const char* what) {
  if (v.size() != 2 || v[0] != v[1] || v[0] < 1) {
    r.refuse(node, fmt::format("{} [{}]; gpgpu's windows are square: two equal positive values",
                               what, fmt::join(v, ", ")));
  }
  return static_cast<std::size_t>(v[0]);
}

// A convolution's or pool's window: kernel, stride and padding, from kernel_shape (or the
// weight's extents), strides, pads, dilations and auto_pad.
struct Window {
  std::size_t kernel = 1, stride = 1;
  Padding pads;
};

// SAME_UPPER / SAME_LOWER: the output extent ceil(in / stride), the padding that needs split
// evenly, the odd one at the end (UPPER) or the start (LOWER).
std::pair<std::size_t, std::size_t> same_padding(std::size_t in, const Window& w, bool upper) {
  const std::size_t out = (in + w.stride - 1) / w.stride;
  const std::size_t needed = (out - 1) * w.stride + w.kernel;
  const std::size_t total = needed > in ? needed - in : 0;
  const std::size_t small = total / 2, large = total - small;
  return upper ? std::pair{small, large} : std::pair{large, small};
}

Window window(GraphReader& r, const Node& node, Attributes& a, std::vector<std::int64_t> kernel) {
  Window w;
  kernel = a.integers("kernel_shape", kernel);
  if (kernel.empty()) r.refuse(node, "it has no kernel_shape");
  w.kernel = square(r, node, kernel, "kernel_shape");
  w.stride = square(r, node, a.integers("strides", {1, 1}), "strides");
  const auto dilations = a.integers("dilations", {1, 1});
  if (dilations != std::vector<std::int64_t>{1, 1}) {
    r.refuse(node, fmt::format("attribute dilations [{}]; gpgpu supports dilation 1",
                               fmt::join(dilations, ", ")));
  }
  const auto auto_pad = a.text("auto_pad", "NOTSET");
  const auto pads = a.integers("pads", {0, 0, 0, 0});
  if (pads.size() != 4 || *std::min_element(pads.begin(), pads.end()) < 0) {
    r.refuse(node,
             fmt::format("attribute pads [{}]; expected four values >= 0", fmt::join(pads, ", ")));
  }
  w.pads = {static_cast<std::size_t>(pads[0]), static_cast<std::size_t>(pads[1]),
            static_cast<std::size_t>(pads[2]), static_cast<std::size_t>(pads[3])};
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const bool upper = auto_pad == "SAME_UPPER";
    std::tie(w.pads.top, w.pads.bottom) = same_padding(r.shape()[1], w, upper);
    std::tie(w.pads.left, w.pads.right) = same_padding(r.shape()[2], w, upper);
  } else if (auto_pad == "VALID") {
    w.pads = {};
  } else if (auto_pad != "NOTSET") {
    r.refuse(node, fmt::format("attribute auto_pad '{}'; expected NOTSET, SAME_UPPER, SAME_LOWER "
                               "or VALID",
                               auto_pad));
  }
  return w;
}

bool symmetric(const Padding& p) {
  return p.top == p.left && p.top == p.bottom && p.top == p.right;
}

std::vector<double> sized(GraphReader& r, const Node& node, const Constant& c, std::size_t n,
                          const char* what) {
  if (c.size() != n) {
    r.refuse(node, fmt::format("its {} has {} values {}; the layer needs {}", what, c.size(),
                               c.dims_text(), n));
  }
  return c.values;
}

void conv(GraphReader& r, const Node& node, Attributes& a) {
  require_image(r, node);
  const Constant& w = r.constant_input(node, 1, "weight");
  if (w.dims.size() != 4) {
    r.refuse(node, fmt::format("its weight has extents {}; a 2-D convolution's are "
                               "(filters, channels, kh, kw)",
                               w.dims_text()));
  }
  const auto group = a.integer("group", 1);
  if (group != 1)
    r.refuse(node, fmt::format("attribute group = {}; gpgpu's Conv2D has group 1", group));
  if (w.dims[1] != static_cast<std::int64_t>(r.shape()[0])) {
    r.refuse(node, fmt::format("its weight {} takes {} channels; the input has {}", w.dims_text(),
                               w.dims[1], r.shape()[0]));
  }
  const Window win = window(r, node, a, {w.dims[2], w.dims[3]});
  if (static_cast<std::int64_t>(win.kernel) != w.dims[2] || w.dims[2] != w.dims[3]) {
    r.refuse(node, fmt::format("kernel_shape {} does not match the weight {}", win.kernel,
                               w.dims_text()));
  }
  const auto filters = static_cast<std::size_t>(w.dims[0]);
  Conv2D c{.filters = filters, .kernel = win.kernel, .stride = win.stride};
  if (symmetric(win.pads)) {
    c.padding = win.pads.top;
  } else {
    c.pads = win.pads;
  }
  std::vector<double> bias(filters, 0.0);
  if (!node.input(2).empty())
    bias = sized(r, node, r.constant_input(node, 2, "bias"), filters, "bias");
  r.add_layer(node, c, {w.values, bias});
}

template <class Pool>
Pool pool_layer(GraphReader& r, const Node& node, Attributes& a) {
  require_image(r, node);
  const Window win = window(r, node, a, {});
  Pool p;
  p.size = win.kernel;
  p.stride = win.stride;
  if (symmetric(win.pads)) {
    p.padding = win.pads.top;
  } else {
    p.pads = win.pads;
  }
  p.ceil_mode = a.integer("ceil_mode", 0) != 0;
  return p;
}

void max_pool(GraphReader& r, const Node& node, Attributes& a) {
  a.ignore("storage_order");  // the layout of the Indices output, which must be unused
  r.add_layer(node, pool_layer<MaxPool2D>(r, node, a));
}

void average_pool(GraphReader& r, const Node& node, Attributes& a) {
  auto p = pool_layer<AvgPool2D>(r, node, a);
  p.count_include_pad = a.integer("count_include_pad", 0) != 0;
  r.add_layer(node, p);
}

void global_average_pool(GraphReader& r, const Node& node, Attributes&) {
  require_image(r, node);
  r.add_layer(node, GlobalAvgPool2D{});
}

// Column f of a dense weight that takes the activation in channels-last order, for the
// (C, H, W) feature order gpgpu's Flatten gives: f = (c H + h) W + w reads (h W + w) C + c.
std::size_t channels_last_column(const Shape& chw, std::size_t f) {
  const std::size_t plane = chw[1] * chw[2], c = f / plane, hw = f % plane;
  return hw * chw[0] + c;
}

// A Dense layer of weight w(o, f) = weight_at(o, f) for the activation's features.
template <class WeightAt>
void add_dense(GraphReader& r, const Node& node, std::size_t units, WeightAt weight_at,
               std::vector<double> bias) {
  const std::size_t features = r.shape()[0];
  std::vector<double> w(units * features);
  const auto& chw = r.channels_last_shape();
  for (std::size_t o = 0; o < units; ++o) {
    for (std::size_t f = 0; f < features; ++f) {
      w[o * features + f] = weight_at(o, chw ? channels_last_column(*chw, f) : f);
    }
  }
  r.set_channels_last(std::nullopt);
  r.add_layer(node, Dense{units}, {std::move(w), std::move(bias)});
}

void gemm(GraphReader& r, const Node& node, Attributes& a) {
  require_vector(r, node);
  if (node.input(0).empty() || r.constant(node.input(0)) != nullptr) {
    r.refuse(node, "its first input must be the activation (gpgpu's Dense computes x W^T)");
  }
  if (a.integer("transA", 0) != 0)
    r.refuse(node, "attribute transA = 1 (the activation transposed)");
  const bool trans_b = a.integer("transB", 0) != 0;
  const double alpha = a.number("alpha", 1.0f), beta = a.number("beta", 1.0f);
  const Constant& b = r.constant_input(node, 1, "weight");
  const std::size_t features = r.shape()[0];
  if (b.dims.size() != 2 || b.dims[trans_b ? 1 : 0] != static_cast<std::int64_t>(features)) {
    r.refuse(node, fmt::format("its weight {} (transB = {}) does not take the {} input features",
                               b.dims_text(), trans_b, features));
  }
  const auto units = static_cast<std::size_t>(b.dims[trans_b ? 0 : 1]);
  std::vector<double> bias(units, 0.0);
  if (!node.input(2).empty()) {
    const Constant& c = r.constant_input(node, 2, "bias");
    if (c.size() != 1 && c.size() != units) {
      r.refuse(node, fmt::format("its bias C {} does not broadcast to ({},) per sample",
                                 c.dims_text(), units));
    }
    for (std::size_t o = 0; o < units; ++o) bias[o] = beta * c.values[c.size() == 1 ? 0 : o];
  }
  add_dense(
      r, node, units,
      [&](std::size_t o, std::size_t f) {
        return alpha * (trans_b ? b.values[o * features + f] : b.values[f * units + o]);
      },
      std::move(bias));
}

void matmul(GraphReader& r, const Node& node, Attributes&) {
  require_vector(r, node);
  if (r.constant(node.input(0)) != nullptr) {
    r.refuse(node, "its first input must be the activation (gpgpu's Dense computes x W^T)");
  }
  const Constant& b = r.constant_input(node, 1, "weight");
  const std::size_t features = r.shape()[0];
  if (b.dims.size() != 2 || b.dims[0] != static_cast<std::int64_t>(features)) {
    r.refuse(node, fmt::format("its weight {} does not take the {} input features (expected "
                               "({}, units))",
                               b.dims_text(), features, features));
  }
  const auto units = static_cast<std::size_t>(b.dims[1]);
  add_dense(
      r, node, units, [&](std::size_t o, std::size_t f) { return b.values[f * units + o]; },
      std::vector<double>(units, 0.0));
}

// gpgpu's momentum (the weight of the batch) for ONNX's (the weight of the old value): 1 - m,
// as the shortest decimal whose float gives m back the way save_onnx writes it
// (float(1 - momentum)), so that a momentum of 0.1 or 0.2 survives a round trip exactly.
float batch_weight(float onnx_momentum) {
  const double exact = 1.0 - static_cast<double>(onnx_momentum);
  for (int digits = 1; digits <= 9; ++digits) {
    const auto candidate = static_cast<float>(std::stod(fmt::format("{:.{}g}", exact, digits)));
    if (static_cast<float>(1.0 - static_cast<double>(candidate)) == onnx_momentum) return candidate;
  }
  return static_cast<float>(exact);
}

void batch_normalization(GraphReader& r, const Node& node, Attributes& a) {
  if ((r.shape().rank() != 1 && r.shape().rank() != 3) || r.channels_last()) {
    r.refuse(node, "it needs (batch, channels, height, width) or (batch, features)");
  }
  const float epsilon = a.number("epsilon", 1e-5f);
  const float momentum = a.number("momentum", 0.9f);
  if (r.opset() < 9 && a.integer("spatial", 1) != 1) {
    r.refuse(node, "attribute spatial = 0 (statistics per element); gpgpu's are per channel");
  }
  if (a.integer("training_mode", 0) != 0) {
    r.refuse(node, "attribute training_mode = 1; gpgpu reads inference graphs");
  }
  a.ignore("is_test");          // opset 6: inference either way
  a.ignore("consumed_inputs");  // opset 1-5 bookkeeping
  const std::size_t channels = r.shape()[0];
  std::vector<std::vector<double>> params;
  const char* names[] = {"scale", "bias", "mean", "variance"};
  for (int i = 0; i < 4; ++i) {
    params.push_back(sized(r, node, r.constant_input(node, i + 1, names[i]), channels, names[i]));
  }
  for (double v : params[3]) {
    if (!(v >= 0.0)) r.refuse(node, fmt::format("its variance holds {}; variances are >= 0", v));
  }
  // ONNX's running statistics keep `momentum` of the old value; gpgpu's momentum weighs the
  // batch (PyTorch's convention).
  r.add_layer(node, BatchNorm{batch_weight(momentum), epsilon}, std::move(params));
}

}  // namespace

void map_layer_operators(std::map<std::string, Handler>& table) {
  table["Conv"] = conv;
  table["MaxPool"] = max_pool;
  table["AveragePool"] = average_pool;
  table["GlobalAveragePool"] = global_average_pool;
  table["Gemm"] = gemm;
  table["MatMul"] = matmul;
  table["BatchNormalization"] = batch_normalization;
}

}  // namespace gpgpu::nn::onnx_detail
