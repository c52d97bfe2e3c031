// A Sequential as an ONNX model (export.hpp): one node per layer (opset 13), the parameters
// as float32 initializers in PyTorch's layouts (ONNX's own), the input and output with a
// symbolic batch extent, and the normalisation and class names as metadata.
#include "export.hpp"

#include <fmt/format.h>
#include <onnx/checker.h>
#include <nlohmann/json.hpp>

#include "constant.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::nn::onnx_detail {

namespace {

using ::onnx::AttributeProto;
using ::onnx::NodeProto;

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

constexpr int opset = 13;

void set_ints(NodeProto& node, const char* name, std::vector<std::int64_t> values) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::INTS);
  for (auto v : values) a->add_ints(v);
}

void set_int(NodeProto& node, const char* name, std::int64_t value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::INT);
  a->set_i(value);
}

void set_float(NodeProto& node, const char* name, float value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::FLOAT);
  a->set_f(value);
}

void set_value_info(::onnx::ValueInfoProto& v, const std::string& name, const Shape& sample) {
  v.set_name(name);
  auto* t = v.mutable_type()->mutable_tensor_type();
  t->set_elem_type(::onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_param("batch");
  for (auto d : sample.dims())
    t->mutable_shape()->add_dim()->set_dim_value(static_cast<std::int64_t>(d));
}

std::vector<std::int64_t> window(const Padding& p) {
  return {static_cast<std::int64_t>(p.top), static_cast<std::int64_t>(p.left),
          static_cast<std::int64_t>(p.bottom), static_cast<std::int64_t>(p.right)};
}

// Writes the nodes and initializers of one layer.
class LayerWriter {
 public:
  LayerWriter(::onnx::GraphProto& graph, const Sequential& model, const std::vector<float>& values)
      : graph_(graph), model_(model), values_(values) {}

  void write(std::size_t i, const std::string& in, const std::string& out) {
    index_ = i;
    const Layer& layer = model_.layers()[i];
    node_ = nullptr;
    std::visit(Overloaded{[&](const Dense&) { linear("Gemm", in, out).transB(); },
                          [&](const Conv2D& c) { conv(c, in, out); },
                          [&](const MaxPool2D& p) { pool("MaxPool", p, in, out); },
                          [&](const AvgPool2D& p) {
                            pool("AveragePool", p, in, out);
                            set_int(*node_, "count_include_pad", p.count_include_pad ? 1 : 0);
                          },
                          [&](const GlobalAvgPool2D&) { add("GlobalAveragePool", {in}, out); },
                          [&](const ReLU&) { add("Relu", {in}, out); },
                          [&](const Sigmoid&) { add("Sigmoid", {in}, out); },
                          [&](const Tanh&) { add("Tanh", {in}, out); },
                          [&](const LeakyReLU& l) {
                            set_float(add("LeakyRelu", {in}, out), "alpha", l.alpha);
                          },
                          [&](const Clip& c) {
                            add("Clip", {in, scalar("min", c.min), scalar("max", c.max)}, out);
                          },
                          [&](const Flatten&) { set_int(add("Flatten", {in}, out), "axis", 1); },
                          [&](const Dropout& d) {
                            add("Dropout", {in, scalar("ratio", d.rate)}, out);
                          },
                          [&](const BatchNorm& b) { batchnorm(b, in, out); },
                          [&](const Softmax&) { set_int(add("Softmax", {in}, out), "axis", -1); }},
               layer);
  }

 private:
  std::string prefix() const {
    return fmt::format("{:02}_{}", index_, layer_type(model_.layers()[index_]));
  }

  NodeProto& add(const char* op, std::vector<std::string> inputs, const std::string& out) {
    node_ = graph_.add_node();
    node_->set_op_type(op);
    node_->set_name(prefix());
    for (auto& name : inputs) node_->add_input(name);
    node_->add_output(out);
    return *node_;
  }

  // The layer's parameter `name` as an initializer; returns its name.
  std::string parameter(const std::string& name) {
    for (const auto& p : model_.parameters()) {
      if (p.layer != index_ || p.name != name) continue;
      const std::vector<std::int64_t> dims(p.shape.dims().begin(), p.shape.dims().end());
      const auto tensor = prefix() + "." + name;
      encode_floats(*graph_.add_initializer(), tensor, dims,
                    std::span<const float>(values_).subspan(p.offset, p.shape.size()));
      return tensor;
    }
    throw Error(fmt::format("save_onnx: internal: layer {} has no parameter {}", index_, name));
  }

  std::string scalar(const char* name, float value) {
    const auto tensor = prefix() + "." + name;
    encode_floats(*graph_.add_initializer(), tensor, {}, std::span<const float>(&value, 1));
    return tensor;
  }

  struct Gemm {
    NodeProto& node;
    void transB() { set_int(node, "transB", 1); }
  };
  Gemm linear(const char* op, const std::string& in, const std::string& out) {
    return {add(op, {in, parameter("weight"), parameter("bias")}, out)};
  }

  void conv(const Conv2D& c, const std::string& in, const std::string& out) {
    NodeProto& n = linear("Conv", in, out).node;
    const auto k = static_cast<std::int64_t>(c.kernel), s = static_cast<std::int64_t>(c.stride);
    set_ints(n, "kernel_shape", {k, k});
    set_ints(n, "strides", {s, s});
    set_ints(n, "pads", window(padding_of(c)));
  }

  template <class Pool>
  void pool(const char* op, const Pool& p, const std::string& in, const std::string& out) {
    NodeProto& n = add(op, {in}, out);
    const auto k = static_cast<std::int64_t>(p.size);
    const auto s = static_cast<std::int64_t>(p.stride == 0 ? p.size : p.stride);
    set_ints(n, "kernel_shape", {k, k});
    set_ints(n, "strides", {s, s});
    set_ints(n, "pads", window(padding_of(p)));
    if (p.ceil_mode) set_int(n, "ceil_mode", 1);
  }

  void batchnorm(const BatchNorm& b, const std::string& in, const std::string& out) {
    NodeProto& n = add("BatchNormalization",
                       {in, parameter("gamma"), parameter("beta"), parameter("running_mean"),
                        parameter("running_var")},
                       out);
    set_float(n, "epsilon", b.epsilon);
    // ONNX weighs the old running value (layers.cpp's batch_weight reads it back).
    set_float(n, "momentum", static_cast<float>(1.0 - static_cast<double>(b.momentum)));
  }

  ::onnx::GraphProto& graph_;
  const Sequential& model_;
  const std::vector<float>& values_;
  std::size_t index_ = 0;
  NodeProto* node_ = nullptr;
};

void write_metadata(::onnx::ModelProto& m, const Sequential& model) {
  auto* norm = m.add_metadata_props();
  norm->set_key("gpgpu.normalization");
  norm->set_value(
      nlohmann::json{{"mean", model.normalization().mean}, {"std", model.normalization().stddev}}
          .dump());
  if (!model.class_names().empty()) {
    auto* classes = m.add_metadata_props();
    classes->set_key("gpgpu.classes");
    classes->set_value(nlohmann::json(model.class_names()).dump());
  }
}

}  // namespace

::onnx::ModelProto export_model(const Sequential& model) {
  if (model.layers().empty()) throw ArgumentError("save_onnx: the model has no layers");
  ::onnx::ModelProto m;
  m.set_ir_version(7);
  m.set_producer_name("gpgpu");
  m.set_producer_version(GPGPU_ONNX_PRODUCER_VERSION);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  auto& graph = *m.mutable_graph();
  graph.set_name("gpgpu_sequential");
  set_value_info(*graph.add_input(), "input", model.input_shape());
  const auto values = model.parameter_values();
  LayerWriter writer(graph, model, values);
  std::string in = "input";
  const std::size_t n = model.layers().size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::string out =
        i + 1 == n ? "output" : fmt::format("{:02}_{}", i, layer_type(model.layers()[i]));
    writer.write(i, in, out);
    in = out;
  }
  set_value_info(*graph.add_output(), "output", model.output_shape());
  write_metadata(m, model);
  try {
    ::onnx::checker::check_model(m);
  } catch (const std::exception& e) {
    throw Error(
        fmt::format("save_onnx: internal: onnx::checker rejects the model written: {}", e.what()));
  }
  return m;
}

}  // namespace gpgpu::nn::onnx_detail
