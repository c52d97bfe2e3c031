// Internal: a node's attributes, read by name with their ONNX types checked. Every
// attribute a node has must be read (or explicitly ignored) by the operator that maps it:
// finish() refuses the rest by name, so that a setting gpgpu does not implement never
// passes silently.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <onnx/onnx_pb.h>

namespace gpgpu::nn::onnx_detail {

class Attributes {
 public:
  // `where` names the node in errors ("cnn.onnx: node 3 'conv1' (Conv)").
  Attributes(const ::onnx::NodeProto& node, std::string where);

  bool has(std::string_view name) const;
  // The value, or `fallback` when absent; FormatError when present with another type.
  std::int64_t integer(std::string_view name, std::int64_t fallback);
  std::vector<std::int64_t> integers(std::string_view name, std::vector<std::int64_t> fallback);
  float number(std::string_view name, float fallback);
  std::vector<float> numbers(std::string_view name);
  std::string text(std::string_view name, std::string fallback);
  // A TENSOR attribute (Constant's value), or null when absent.
  const ::onnx::TensorProto* tensor(std::string_view name);
  // Marks an attribute as read without using its value (one that cannot change the result).
  void ignore(std::string_view name);
  // UnsupportedError naming the first attribute nobody read.
  void finish() const;
  const std::string& where() const { return where_; }

 private:
  const ::onnx::AttributeProto* find(std::string_view name, int type);

  const ::onnx::NodeProto& node_;
  std::string where_;
  std::set<std::string, std::less<>> read_;
};

}  // namespace gpgpu::nn::onnx_detail
