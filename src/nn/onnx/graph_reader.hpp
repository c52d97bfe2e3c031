// Internal: the walk over an ONNX graph's nodes (in their topological order) that turns it
// into a chain of steps (steps.hpp). The reader follows one value, "the activation", from
// the graph's input: each node must take the activation (and constants) and gives the next
// one; nodes over constants alone (initializers, Constant, the Shape/Gather/Concat chains
// exporters write for a reshape's target) are evaluated as they come. Operators are mapped
// by handlers: layers.cpp (Conv, pools, Gemm, MatMul, BatchNormalization), elementwise.cpp
// (activations, Softmax, no-ops, arithmetic with constants), reshaping.cpp (Flatten,
// Reshape, Squeeze, Transpose) and constant_ops.cpp (computations on constants).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "attributes.hpp"
#include "constant.hpp"
#include "steps.hpp"

namespace gpgpu::nn::onnx_detail {

// The opsets of the default domain the reader accepts.
inline constexpr int min_opset = 7, max_opset = 17;

// One node while it is mapped: the proto, its index in the graph, and the text that names it
// in errors ("cnn.onnx: node 3 'conv1' (Conv)").
struct Node {
  const ::onnx::NodeProto& proto;
  std::size_t index;
  std::string where;
  const std::string& op() const { return proto.op_type(); }
  // Input i's name, or "" when absent (an omitted optional input).
  std::string input(int i) const { return i < proto.input_size() ? proto.input(i) : std::string(); }
};

// UnsupportedError for an opset outside [min_opset, max_opset], or for the first node of
// another domain or of an operator gpgpu does not read at all: checked before
// onnx::checker and shape inference look at the graph.
void check_supported(const ::onnx::ModelProto& model, const std::string& origin);

class GraphReader {
 public:
  // `model` has passed onnx::checker.
  GraphReader(const ::onnx::ModelProto& model, std::string origin);
  // The steps from the graph's input to its output, or the one error that stops them.
  std::vector<Step> read();
  // The model's per-sample input shape (C, H, W) or (F); (C, H, W) also for an NHWC input
  // that the graph transposes first (the model then takes NCHW).
  const Shape& input_shape() const { return input_shape_; }

  // --- for the handlers ---
  int opset() const { return opset_; }
  const Shape& shape() const { return shape_; }
  [[noreturn]] void refuse(const Node& node, const std::string& what) const;
  // The constant named `name`, or null.
  const Constant* constant(const std::string& name) const;
  // Input i of `node` as a constant; UnsupportedError saying `what` it is when it is not one.
  const Constant& constant_input(const Node& node, int i, const char* what) const;
  // Appends a layer (checked against the current shape) or an affine map, and makes the
  // node's output the activation.
  void add_layer(const Node& node, Layer layer, std::vector<std::vector<double>> params = {});
  void add_affine(const Node& node, Affine affine);
  // The node's output becomes the activation with the same values (no-ops, reshapes).
  void pass_through(const Node& node, std::optional<Shape> shape = std::nullopt);
  // The activation is (H, W, C) of the (C, H, W) shape(): after a Transpose(0, 2, 3, 1),
  // until a dense layer takes it (its weight columns are permuted to match).
  bool channels_last() const { return channels_last_.has_value(); }
  const std::optional<Shape>& channels_last_shape() const { return channels_last_; }
  void set_channels_last(std::optional<Shape> chw) { channels_last_ = std::move(chw); }
  // Whether no layer has been added yet and the activation is the graph's input.
  bool at_input() const { return steps_.empty() && current_ == input_name_; }
  void transpose_input(const Node& node);
  // The ONNX batch extent of the input when the file fixes it (0: symbolic).
  std::int64_t declared_batch() const { return declared_batch_; }

  // The per-sample extents (in the graph's layout) the layers give each mapped node's
  // output, for a comparison with ONNX's shape inference once the walk has accepted the
  // graph (import.cpp: the inference runs only on graphs gpgpu has checked, as the ONNX
  // library's own crashes on some malformed ones).
  struct Produced {
    std::string where, name;
    std::vector<std::int64_t> dims;
  };
  const std::vector<Produced>& produced() const { return produced_; }

 private:
  void read_input();
  void map_node(const Node& node);
  void evaluate_constants(const Node& node, Attributes& attributes);
  void check_outputs_unused(const Node& node) const;
  void record_shape(const Node& node);
  void check_graph_output() const;
  std::vector<std::int64_t> onnx_dims() const;  // the activation's per-sample ONNX extents

  const ::onnx::GraphProto& graph_;
  std::string origin_;
  int opset_ = 0;
  std::map<std::string, Constant> constants_;
  std::vector<Produced> produced_;
  std::set<std::string> consumed_;  // inputs of nodes, outputs
  std::string input_name_, current_;
  Shape input_shape_, shape_;
  std::int64_t declared_batch_ = 0;
  std::optional<Shape> channels_last_;
  std::vector<Step> steps_;
};

// The operator handlers (layers.cpp, elementwise.cpp, reshaping.cpp): map `node`, whose data
// input is the activation, onto steps.
using Handler = void (*)(GraphReader& reader, const Node& node, Attributes& attributes);
// The handler of an operator of the default domain, or null.
Handler handler_of(const std::string& op);
// The operators handler_of knows, for messages ("Add, AveragePool, ...").
std::string supported_operators();

// Computations on constants (constant_ops.cpp): the output of `node` (all of whose inputs are
// constants) or null when its operator is not one gpgpu evaluates.
std::optional<Constant> evaluate(const Node& node, Attributes& attributes,
                                 const std::vector<const Constant*>& inputs, int opset);
// The operators evaluate() knows.
bool evaluates(const std::string& op);

}  // namespace gpgpu::nn::onnx_detail
