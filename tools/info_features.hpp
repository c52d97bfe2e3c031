// `gpgpu info --features`: each feature of gpgpu run once, small, and checked.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpgpu/context.hpp"

namespace gpgpu::cli {

enum class FeatureStatus { Works, Refused, Wrong };
std::string_view to_string(FeatureStatus status);

struct FeatureResult {
  FeatureStatus status;
  std::string detail;  // how it ran, or the error that refused it
};

struct Feature {
  std::string name;
  FeatureResult result;
};

// Runs every feature on `ctx` (its limits, its profile): kernels of the three paths, each
// matmul method, the primitives, nn inference on the GPU backends, the earth model.
std::vector<Feature> probe_features(const Context& ctx);

}  // namespace gpgpu::cli
