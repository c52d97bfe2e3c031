// The table of operator handlers (graph_reader.hpp's handler_of), filled by the files that
// define them.
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "graph_reader.hpp"

namespace gpgpu::nn::onnx_detail {

void map_layer_operators(std::map<std::string, Handler>& table);        // layers.cpp
void map_elementwise_operators(std::map<std::string, Handler>& table);  // elementwise.cpp
void map_reshaping_operators(std::map<std::string, Handler>& table);    // reshaping.cpp

namespace {

const std::map<std::string, Handler>& table() {
  static const auto handlers = [] {
    std::map<std::string, Handler> t;
    map_layer_operators(t);
    map_elementwise_operators(t);
    map_reshaping_operators(t);
    return t;
  }();
  return handlers;
}

}  // namespace

Handler handler_of(const std::string& op) {
  const auto it = table().find(op);
  return it == table().end() ? nullptr : it->second;
}

std::string supported_operators() {
  std::vector<std::string> names;
  for (const auto& [name, handler] : table()) names.push_back(name);
  return fmt::format("{} (docs/onnx.md)", fmt::join(names, ", "));
}

}  // namespace gpgpu::nn::onnx_detail
