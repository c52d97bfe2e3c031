// Typed attribute reads (attributes.hpp).
#include "attributes.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::nn::onnx_detail {

namespace {

using ::onnx::AttributeProto;

std::string type_name(int type) {
  return AttributeProto::AttributeType_IsValid(type)
             ? AttributeProto::AttributeType_Name(static_cast<AttributeProto::AttributeType>(type))
             : fmt::format("type {}", type);
}

}  // namespace

Attributes::Attributes(const ::onnx::NodeProto& node, std::string where)
    : node_(node), where_(std::move(where)) {}

bool Attributes::has(std::string_view name) const {
  for (const auto& a : node_.attribute()) {
    if (a.name() == name) return true;
  }
  return false;
}

const AttributeProto* Attributes::find(std::string_view name, int type) {
  for (const auto& a : node_.attribute()) {
    if (a.name() != name) continue;
    read_.emplace(name);
    if (a.type() != type) {
      throw FormatError(fmt::format("{}: attribute '{}' must be {}; the file has {}", where_, name,
                                    type_name(type), type_name(a.type())));
    }
    return &a;
  }
  read_.emplace(name);
  return nullptr;
}

std::int64_t Attributes::integer(std::string_view name, std::int64_t fallback) {
  const auto* a = find(name, AttributeProto::INT);
  return a ? a->i() : fallback;
}

std::vector<std::int64_t> Attributes::integers(std::string_view name,
                                               std::vector<std::int64_t> fallback) {
  const auto* a = find(name, AttributeProto::INTS);
  return a ? std::vector<std::int64_t>(a->ints().begin(), a->ints().end()) : fallback;
}

float Attributes::number(std::string_view name, float fallback) {
  const auto* a = find(name, AttributeProto::FLOAT);
  return a ? a->f() : fallback;
}

std::vector<float> Attributes::numbers(std::string_view name) {
  const auto* a = find(name, AttributeProto::FLOATS);
  return a ? std::vector<float>(a->floats().begin(), a->floats().end()) : std::vector<float>{};
}

std::string Attributes::text(std::string_view name, std::string fallback) {
  const auto* a = find(name, AttributeProto::STRING);
  return a ? a->s() : fallback;
}

const ::onnx::TensorProto* Attributes::tensor(std::string_view name) {
  const auto* a = find(name, AttributeProto::TENSOR);
  return a ? &a->t() : nullptr;
}

void Attributes::ignore(std::string_view name) {
  read_.emplace(name);
}

void Attributes::finish() const {
  for (const auto& a : node_.attribute()) {
    if (!read_.count(a.name())) {
      throw UnsupportedError(fmt::format("{}: attribute '{}' is not supported for {}", where_,
                                         a.name(), node_.op_type()));
    }
  }
}

}  // namespace gpgpu::nn::onnx_detail
