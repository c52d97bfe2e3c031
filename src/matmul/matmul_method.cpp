// Names of the matmul methods, as the bench, the CLI and the JSON files spell them.
#include <array>
#include <utility>

#include "gpgpu/matmul.hpp"

namespace gpgpu {

namespace {

constexpr std::array<std::pair<MatmulMethod, std::string_view>, 10> method_names{{
    {MatmulMethod::Auto, "auto"},
    {MatmulMethod::ComputeNaive, "compute_naive"},
    {MatmulMethod::ComputeTiled, "compute_tiled"},
    {MatmulMethod::ComputeRegisterBlocked, "compute_register_blocked"},
    {MatmulMethod::TransformFeedbackTexture, "transform_feedback_texture"},
    {MatmulMethod::TransformFeedbackVec4, "transform_feedback_vec4"},
    {MatmulMethod::TransformFeedbackBlocked, "transform_feedback_blocked"},
    {MatmulMethod::FragmentNaive, "fragment_naive"},
    {MatmulMethod::FragmentPacked, "fragment_packed"},
    {MatmulMethod::HostBlas, "host_blas"},
}};

}  // namespace

std::string_view to_string(MatmulMethod method) {
  for (const auto& [value, name] : method_names) {
    if (value == method) return name;
  }
  return "unknown";
}

std::optional<MatmulMethod> parse_matmul_method(std::string_view name) {
  for (const auto& [value, known] : method_names) {
    if (known == name) return value;
  }
  return std::nullopt;
}

std::vector<MatmulMethod> all_matmul_methods() {
  std::vector<MatmulMethod> methods;
  for (const auto& [value, name] : method_names) {
    if (value != MatmulMethod::Auto && value != MatmulMethod::HostBlas) methods.push_back(value);
  }
  return methods;
}

bool matmul_method_implemented(MatmulMethod method) {
  return parse_matmul_method(to_string(method)).has_value();
}

}  // namespace gpgpu
