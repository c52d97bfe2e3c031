// The handlers of the element-wise operators: activations, Softmax, the no-ops (Dropout,
// Identity) and Add, Sub, Mul and Div by a constant (graph_reader.hpp).
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpgpu/error.hpp"
#include "graph_reader.hpp"

namespace gpgpu::nn::onnx_detail {

namespace {

void relu(GraphReader& r, const Node& node, Attributes&) {
  r.add_layer(node, ReLU{});
}

void sigmoid(GraphReader& r, const Node& node, Attributes&) {
  r.add_layer(node, Sigmoid{});
}

void tanh(GraphReader& r, const Node& node, Attributes&) {
  r.add_layer(node, Tanh{});
}

void leaky_relu(GraphReader& r, const Node& node, Attributes& a) {
  r.add_layer(node, LeakyReLU{a.number("alpha", 0.01f)});
}

// A scalar bound of Clip: its input (opset 11 on) or attribute (before), else `fallback`.
double clip_bound(GraphReader& r, const Node& node, Attributes& a, int input, const char* name,
                  double fallback) {
  if (r.opset() < 11) return a.has(name) ? a.number(name, 0.0f) : fallback;
  if (node.input(input).empty()) return fallback;
  const Constant& c = r.constant_input(node, input, name);
  if (!c.scalar_like())
    r.refuse(node, fmt::format("its {} has extents {}; expected a scalar", name, c.dims_text()));
  return c.values[0];
}

// Clip(0, +inf) is a ReLU; other bounds a Clip layer, an absent bound the largest float.
void clip(GraphReader& r, const Node& node, Attributes& a) {
  constexpr double largest = std::numeric_limits<float>::max();
  const double lo = clip_bound(r, node, a, 1, "min", -INFINITY);
  const double hi = clip_bound(r, node, a, 2, "max", INFINITY);
  if (lo == 0.0 && hi == INFINITY) return r.add_layer(node, ReLU{});
  const auto bound = [&](double v) { return static_cast<float>(std::clamp(v, -largest, largest)); };
  r.add_layer(node, Clip{bound(lo), bound(hi)});
}

void softmax(GraphReader& r, const Node& node, Attributes& a) {
  const auto rank = static_cast<std::int64_t>(r.shape().rank()) + 1;
  const auto axis = a.integer("axis", r.opset() < 13 ? 1 : -1);
  if (rank != 2 || (axis != 1 && axis != -1)) {
    r.refuse(node, fmt::format("softmax over axis {} of a rank-{} tensor; gpgpu's Softmax takes "
                               "(batch, features) and normalises the features",
                               axis, rank));
  }
  r.add_layer(node, Softmax{});
}

// Dropout: a Dropout layer of the same rate (the identity in evaluation, where it costs no
// kernel; kept so that the model trains and round trips as written). A training_mode input
// that is a true constant asks for dropout in inference, which gpgpu does not do.
void dropout(GraphReader& r, const Node& node, Attributes& a) {
  a.ignore("seed");     // opset 12 on
  a.ignore("is_test");  // opset 6
  double rate = r.opset() < 12 ? a.number("ratio", 0.5f) : 0.5;
  if (r.opset() >= 12 && !node.input(1).empty()) {
    const Constant& ratio = r.constant_input(node, 1, "ratio");
    if (!ratio.scalar_like()) r.refuse(node, "its ratio is not a scalar");
    rate = ratio.values[0];
  }
  if (!(rate >= 0.0 && rate < 1.0)) {
    r.refuse(node, fmt::format("its ratio is {}; gpgpu's Dropout takes a rate in [0, 1)", rate));
  }
  if (!node.input(2).empty()) {
    const Constant& mode = r.constant_input(node, 2, "training_mode");
    if (mode.scalar_like() && mode.values[0] != 0) {
      r.refuse(node, "training_mode is true; gpgpu reads inference graphs");
    }
  }
  r.add_layer(node, Dropout{static_cast<float>(rate)});
}

void identity(GraphReader& r, const Node& node, Attributes&) {
  r.pass_through(node);
}

// Which of the activation's per-sample elements a constant of these extents (broadcast the
// NumPy way against (batch, sample...)) varies over: every one alike (a scalar), or the
// channels / features (axis 1). Anything else is refused.
void check_broadcast(GraphReader& r, const Node& node, const Constant& c) {
  const std::size_t rank = r.shape().rank() + 1;
  const std::size_t channels = r.shape()[0];
  bool ok = c.dims.size() <= rank;
  for (std::size_t k = 0; ok && k < c.dims.size(); ++k) {
    const std::size_t axis = rank - c.dims.size() + k;  // right-aligned
    const auto d = c.dims[k];
    ok = d == 1 || (axis == 1 && d == static_cast<std::int64_t>(channels));
  }
  if (!ok || r.channels_last()) {
    r.refuse(node, fmt::format("its constant has extents {}, which vary over more than the "
                               "channels of (batch, {}); gpgpu folds scalars and per-channel "
                               "constants only",
                               c.dims_text(), fmt::join(r.shape().dims(), ", ")));
  }
}

// x + c, x - c, c - x, x c, c x and x / c for a constant c: an affine map (steps.hpp).
void arithmetic(GraphReader& r, const Node& node, Attributes&) {
  const bool constant_first = r.constant(node.input(0)) != nullptr;
  const Constant& c = r.constant_input(node, constant_first ? 0 : 1, "constant operand");
  check_broadcast(r, node, c);
  Affine a;
  const std::string& op = node.op();
  if (op == "Div" && constant_first) r.refuse(node, "it divides a constant by the activation");
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (!std::isfinite(c.values[i]) || (op == "Div" && c.values[i] == 0.0)) {
      r.refuse(node, fmt::format("its constant holds {} (element {})", c.values[i], i));
    }
  }
  if (op == "Add") {
    a.shift = c.values;
  } else if (op == "Sub") {
    a.shift = c.values;
    if (constant_first) {
      a.scale = {-1.0};
    } else {
      for (auto& v : a.shift) v = -v;
    }
  } else if (op == "Mul") {
    a.scale = c.values;
  } else {
    a.scale = c.values;
    for (auto& v : a.scale) v = 1.0 / v;
  }
  r.add_affine(node, std::move(a));
}

}  // namespace

void map_elementwise_operators(std::map<std::string, Handler>& table) {
  table["Relu"] = relu;
  table["LeakyRelu"] = leaky_relu;
  table["Sigmoid"] = sigmoid;
  table["Tanh"] = tanh;
  table["Clip"] = clip;
  table["Softmax"] = softmax;
  table["Dropout"] = dropout;
  table["Identity"] = identity;
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) table[op] = arithmetic;
}

}  // namespace gpgpu::nn::onnx_detail
