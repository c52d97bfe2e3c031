// The walk over the graph (graph_reader.hpp): the input, each node in turn, the output.
#include "graph_reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpgpu/error.hpp"

namespace gpgpu::nn::onnx_detail {

namespace {

std::string node_where(const std::string& origin, std::size_t index,
                       const ::onnx::NodeProto& node) {
  if (node.name().empty()) return fmt::format("{}: node {} ({})", origin, index, node.op_type());
  return fmt::format("{}: node {} '{}' ({})", origin, index, node.name(), node.op_type());
}

// The per-sample extents of a value's type, when the type is a tensor whose extents after
// the first are all known.
std::optional<std::vector<std::int64_t>> sample_dims(const ::onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  const auto& dims = type.tensor_type().shape().dim();
  if (dims.empty()) return std::nullopt;
  std::vector<std::int64_t> out;
  for (int i = 1; i < dims.size(); ++i) {
    if (!dims[i].has_dim_value()) return std::nullopt;
    out.push_back(dims[i].dim_value());
  }
  return out;
}

int default_opset(const ::onnx::ModelProto& model, const std::string& origin) {
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      if (o.version() < min_opset || o.version() > max_opset) {
        throw UnsupportedError(fmt::format(
            "{}: opset {} of the default domain; gpgpu reads opsets {} to {} (re-export with "
            "opset_version={}, or convert with onnx.version_converter)",
            origin, o.version(), min_opset, max_opset, max_opset));
      }
      return static_cast<int>(o.version());
    }
  }
  throw FormatError(
      fmt::format("{}: the model imports no opset of the default ONNX domain", origin));
}

}  // namespace

GraphReader::GraphReader(const ::onnx::ModelProto& model, std::string origin)
    : graph_(model.graph()), origin_(std::move(origin)), opset_(default_opset(model, origin_)) {
  for (const auto& t : graph_.initializer()) {
    constants_[t.name()] = decode_tensor(t, fmt::format("{}: initializer '{}'", origin_, t.name()));
  }
  for (const auto& n : graph_.node()) {
    for (const auto& in : n.input()) consumed_.insert(in);
  }
  for (const auto& o : graph_.output()) consumed_.insert(o.name());
}

void GraphReader::refuse(const Node& node, const std::string& what) const {
  throw UnsupportedError(fmt::format("{}: {}", node.where, what));
}

const Constant* GraphReader::constant(const std::string& name) const {
  const auto it = constants_.find(name);
  return it == constants_.end() ? nullptr : &it->second;
}

const Constant& GraphReader::constant_input(const Node& node, int i, const char* what) const {
  const Constant* c = constant(node.input(i));
  if (c == nullptr) {
    refuse(node, fmt::format("input {} ('{}', the {}) must be a constant (an initializer or a "
                             "Constant node)",
                             i, node.input(i), what));
  }
  return *c;
}

void GraphReader::read_input() {
  std::vector<const ::onnx::ValueInfoProto*> data;
  for (const auto& in : graph_.input()) {
    if (!constants_.count(in.name())) data.push_back(&in);
  }
  if (data.size() != 1) {
    throw UnsupportedError(
        fmt::format("{}: the graph has {} inputs besides its initializers; a gpgpu model takes one",
                    origin_, data.size()));
  }
  const auto& in = *data[0];
  input_name_ = current_ = in.name();
  const auto where = fmt::format("{}: input '{}'", origin_, in.name());
  if (!in.type().has_tensor_type() ||
      in.type().tensor_type().elem_type() != ::onnx::TensorProto::FLOAT) {
    throw UnsupportedError(where + " is not a float tensor");
  }
  const auto& shape = in.type().tensor_type().shape();
  if (shape.dim_size() != 2 && shape.dim_size() != 4) {
    throw UnsupportedError(
        fmt::format("{} has rank {}; gpgpu models take images (batch, channels, height, width) or "
                    "vectors (batch, features)",
                    where, shape.dim_size()));
  }
  if (shape.dim(0).has_dim_value()) declared_batch_ = shape.dim(0).dim_value();
  std::vector<std::size_t> dims;
  for (int i = 1; i < shape.dim_size(); ++i) {
    const auto& d = shape.dim(i);
    if (!d.has_dim_value() || d.dim_value() <= 0) {
      throw UnsupportedError(fmt::format(
          "{}: extent {} is {}; gpgpu needs every extent but the batch fixed (export with a "
          "fixed image size)",
          where, i, d.has_dim_param() ? "'" + d.dim_param() + "'" : "unknown"));
    }
    dims.push_back(static_cast<std::size_t>(d.dim_value()));
  }
  const std::vector<std::int64_t> signed_dims(dims.begin(), dims.end());
  if (element_count(signed_dims, where) == 0) throw FormatError(where + " has no elements");
  input_shape_ = shape_ = Shape(dims);
}

void GraphReader::transpose_input(const Node& node) {
  // (N, H, W, C) -> (N, C, H, W): the model takes NCHW from here on.
  input_shape_ = shape_ = Shape{shape_[2], shape_[0], shape_[1]};
  pass_through(node);
}

std::vector<Step> GraphReader::read() {
  read_input();
  for (int i = 0; i < graph_.node_size(); ++i) {
    const auto& proto = graph_.node(i);
    map_node({proto, static_cast<std::size_t>(i), node_where(origin_, i, proto)});
  }
  check_graph_output();
  if (steps_.empty()) {
    throw UnsupportedError(fmt::format("{}: the graph has no layers to run", origin_));
  }
  return std::move(steps_);
}

void check_supported(const ::onnx::ModelProto& model, const std::string& origin) {
  (void)default_opset(model, origin);
  const auto& graph = model.graph();
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& proto = graph.node(i);
    const auto where = node_where(origin, static_cast<std::size_t>(i), proto);
    if (!proto.domain().empty() && proto.domain() != "ai.onnx") {
      throw UnsupportedError(
          fmt::format("{}: operators of the domain '{}' are not supported "
                      "(gpgpu reads the default ONNX domain)",
                      where, proto.domain()));
    }
    if (handler_of(proto.op_type()) == nullptr && !evaluates(proto.op_type()) &&
        proto.op_type() != "Shape") {
      throw UnsupportedError(fmt::format("{}: the operator {} is not supported; gpgpu reads {}",
                                         where, proto.op_type(), supported_operators()));
    }
  }
}

void GraphReader::map_node(const Node& node) {
  Attributes attributes(node.proto, node.where);
  std::vector<std::string> values;  // inputs that are not constants: values of the chain
  for (const auto& in : node.proto.input()) {
    if (!in.empty() && !constants_.count(in)) values.push_back(in);
  }
  if (values.empty() || (node.op() == "Shape" && values.size() == 1 && values[0] == current_)) {
    evaluate_constants(node, attributes);
    attributes.finish();
    return;
  }
  if (values.size() > 1) {
    refuse(node, fmt::format("it joins two paths ('{}' and '{}'); a gpgpu Sequential is one chain "
                             "of layers (no residual connections or concatenated branches)",
                             values[0], values[1]));
  }
  if (values[0] != current_) {
    refuse(node, fmt::format("it takes '{}', which is not the output of the layer before ('{}'); a "
                             "gpgpu Sequential is one chain of layers (no branches)",
                             values[0], current_));
  }
  const Handler handler = handler_of(node.op());
  if (handler == nullptr) {
    refuse(node, fmt::format("{} is supported only on constants (as part of a shape "
                             "computation), not on the activation",
                             node.op()));
  }
  check_outputs_unused(node);
  handler(*this, node, attributes);
  attributes.finish();
  record_shape(node);
}

void GraphReader::evaluate_constants(const Node& node, Attributes& attributes) {
  if (node.op() == "Shape") {
    // The activation's shape, batch first; Shape-15's start and end take a slice of it.
    Constant shape{{}, {batch_extent}, true};
    for (auto d : onnx_dims()) shape.values.push_back(static_cast<double>(d));
    if (!node.input(0).empty() && node.input(0) != current_) {
      const Constant& c = constant_input(node, 0, "data");
      shape.values.assign(c.dims.begin(), c.dims.end());
    }
    const auto rank = static_cast<std::int64_t>(shape.values.size());
    auto clamp = [&](std::int64_t v) {
      return std::clamp(v < 0 ? v + rank : v, std::int64_t{0}, rank);
    };
    const std::int64_t start = clamp(attributes.integer("start", 0)),
                       end = clamp(attributes.integer("end", rank));
    std::vector<double> slice;
    for (std::int64_t i = start; i < end; ++i)
      slice.push_back(shape.values[static_cast<std::size_t>(i)]);
    shape.values = slice;
    shape.dims = {static_cast<std::int64_t>(slice.size())};
    constants_[node.proto.output(0)] = std::move(shape);
    return;
  }
  std::vector<const Constant*> inputs;
  for (const auto& in : node.proto.input()) inputs.push_back(in.empty() ? nullptr : constant(in));
  auto result = evaluate(node, attributes, inputs, opset_);
  if (!result) {
    refuse(node, fmt::format(
                     "it computes on constants alone, and {} is not among the operators gpgpu "
                     "evaluates on constants (Constant, Identity, Cast, Shape, Gather, Unsqueeze, "
                     "Squeeze, Concat, Reshape, Transpose, Add, Sub, Mul, Div, Neg, Sqrt)",
                     node.op()));
  }
  if (node.proto.output_size() < 1) refuse(node, "it has no output");
  constants_[node.proto.output(0)] = std::move(*result);
}

void GraphReader::check_outputs_unused(const Node& node) const {
  for (int k = 1; k < node.proto.output_size(); ++k) {
    const auto& name = node.proto.output(k);
    if (!name.empty() && consumed_.count(name)) {
      refuse(node,
             fmt::format("its output {} ('{}') is used; gpgpu computes only the first", k, name));
    }
  }
}

void GraphReader::add_layer(const Node& node, Layer layer,
                            std::vector<std::vector<double>> params) {
  Shape out;
  try {
    out = nn::output_shape(layer, shape_);
  } catch (const ArgumentError& e) {
    refuse(node, e.what());
  }
  const auto specs = parameter_specs(layer, shape_);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (i >= params.size() || params[i].size() != specs[i].shape.size()) {
      throw Error(fmt::format(
          "{}: internal: parameter {} of {} has {} values for {}", node.where, specs[i].name,
          layer_type(layer), i < params.size() ? params[i].size() : 0, specs[i].shape.to_string()));
    }
  }
  steps_.push_back({std::move(layer), std::move(params), shape_, node.where});
  pass_through(node, out);
}

void GraphReader::add_affine(const Node& node, Affine affine) {
  steps_.push_back({std::move(affine), {}, shape_, node.where});
  pass_through(node);
}

void GraphReader::pass_through(const Node& node, std::optional<Shape> shape) {
  if (node.proto.output_size() < 1 || node.proto.output(0).empty())
    refuse(node, "it has no output");
  current_ = node.proto.output(0);
  if (shape) shape_ = std::move(*shape);
}

std::vector<std::int64_t> GraphReader::onnx_dims() const {
  std::vector<std::int64_t> dims(shape_.dims().begin(), shape_.dims().end());
  if (channels_last_ && dims.size() == 3) dims = {dims[1], dims[2], dims[0]};
  return dims;
}

void GraphReader::record_shape(const Node& node) {
  if (current_ == node.proto.output(0)) produced_.push_back({node.where, current_, onnx_dims()});
}

void GraphReader::check_graph_output() const {
  if (graph_.output_size() != 1) {
    throw UnsupportedError(fmt::format("{}: the graph has {} outputs; a gpgpu model gives one",
                                       origin_, graph_.output_size()));
  }
  const auto& out = graph_.output(0);
  if (out.name() != current_) {
    throw UnsupportedError(
        fmt::format("{}: the graph's output '{}' is not the end of its chain of layers ('{}')",
                    origin_, out.name(), current_));
  }
  if (channels_last_) {
    throw UnsupportedError(fmt::format(
        "{}: the output is transposed to channels-last; gpgpu models give (batch, channels, "
        "height, width)",
        origin_));
  }
  if (const auto dims = sample_dims(out.type()); dims && *dims != onnx_dims()) {
    throw FormatError(fmt::format(
        "{}: the graph declares its output '{}' with extents ({}) but the layers give ({})",
        origin_, out.name(), fmt::join(*dims, ", "), fmt::join(onnx_dims(), ", ")));
  }
}

}  // namespace gpgpu::nn::onnx_detail
