// Bytes to a Network (import.hpp).
#include "import.hpp"

#include <climits>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <nlohmann/json.hpp>

#include "gpgpu/error.hpp"
#include "graph_reader.hpp"

namespace gpgpu::nn::onnx_detail {

namespace {

::onnx::ModelProto parse(std::span<const std::byte> bytes, const std::string& origin) {
  ::onnx::ModelProto model;
  if (bytes.size() > INT_MAX ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw FormatError(fmt::format(
        "{}: not an ONNX model (protobuf cannot parse its {} bytes as a ModelProto; a truncated "
        "or damaged file?)",
        origin, bytes.size()));
  }
  if (!model.has_graph()) throw FormatError(fmt::format("{}: the model has no graph", origin));
  return model;
}

void check(const ::onnx::ModelProto& model, const std::string& origin) {
  try {
    ::onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    throw FormatError(fmt::format("{}: onnx::checker rejects the model: {}", origin, e.what()));
  }
}

// ONNX's shape inference over a graph the walk accepted, compared node by node with the
// extents the gpgpu layers give (a second opinion on every layer's output shape).
void compare_inferred_shapes(::onnx::ModelProto& model, const GraphReader& reader,
                             const std::string& origin) {
  try {
    ::onnx::shape_inference::InferShapes(model);
  } catch (const std::exception& e) {
    throw FormatError(fmt::format("{}: ONNX shape inference fails: {}", origin, e.what()));
  }
  std::map<std::string, std::vector<std::int64_t>> inferred;
  for (const auto& v : model.graph().value_info()) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
    const auto& dims = v.type().tensor_type().shape().dim();
    std::vector<std::int64_t> sample;
    bool known = dims.size() > 0;
    for (int i = 1; known && i < dims.size(); ++i) {
      known = dims[i].has_dim_value();
      sample.push_back(dims[i].dim_value());
    }
    if (known) inferred[v.name()] = sample;
  }
  for (const auto& p : reader.produced()) {
    const auto it = inferred.find(p.name);
    if (it != inferred.end() && it->second != p.dims) {
      throw UnsupportedError(fmt::format(
          "{}: ONNX's shape inference gives its output the extents ({}) but the gpgpu layers "
          "give ({})",
          p.where, fmt::join(it->second, ", "), fmt::join(p.dims, ", ")));
    }
  }
}

// gpgpu.normalization {"mean": m, "std": s} and gpgpu.classes ["name", ...], as save_onnx
// writes them.
void read_metadata(const ::onnx::ModelProto& model, const std::string& origin, Network& net) {
  for (const auto& p : model.metadata_props()) {
    if (p.key() != "gpgpu.normalization" && p.key() != "gpgpu.classes") continue;
    const auto where = fmt::format("{}: metadata {}", origin, p.key());
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(p.value());
    } catch (const nlohmann::json::exception& e) {
      throw FormatError(fmt::format("{}: not JSON ({})", where, e.what()));
    }
    if (p.key() == "gpgpu.normalization") {
      if (!j.is_object() || !j.contains("mean") || !j.contains("std") || !j["mean"].is_number() ||
          !j["std"].is_number() || !(j["std"].get<double>() > 0)) {
        throw FormatError(where + " must be {\"mean\": m, \"std\": s > 0}");
      }
      net.normalization = {j["mean"].get<float>(), j["std"].get<float>()};
    } else {
      if (!j.is_array()) throw FormatError(where + " must be an array of names");
      for (const auto& name : j) {
        if (!name.is_string()) throw FormatError(where + " must hold strings");
        net.class_names.push_back(name.get<std::string>());
      }
    }
  }
}

}  // namespace

Network import_network(std::span<const std::byte> bytes, const std::string& origin,
                       const OnnxOptions& options) {
  ::onnx::ModelProto model = parse(bytes, origin);
  check_supported(model, origin);
  check(model, origin);
  GraphReader reader(model, origin);
  auto steps = reader.read();
  compare_inferred_shapes(model, reader, origin);
  Network net;
  net.input = reader.input_shape();
  fold_steps(std::move(steps), options.fold_batchnorm, net);
  read_metadata(model, origin, net);
  return net;
}

}  // namespace gpgpu::nn::onnx_detail
