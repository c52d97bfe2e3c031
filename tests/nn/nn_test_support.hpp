// Helpers shared by the gpgpu::nn tests: random parameters of the right kind, element-wise
// comparison against the float64 reference and its bounds, backend configurations.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/nn.hpp"
#include "reference.hpp"
#include "test_support.hpp"

namespace nntest {

namespace nn = gpgpu::nn;

// A backend and how its kernels are built.
struct BackendConfig {
  std::string name;
  nn::Backend backend = nn::Backend::Compute;
  nn::BackendOptions options;
};
// A model of a few layers at an input shape and batch size, checked by check_case.
struct LayerCase {
  std::string name;
  nn::Shape input;
  std::vector<nn::Layer> layers;
  std::size_t batch;
};
// Runs `c` twice with fresh inputs and parameters (so an output a kernel failed to write
// keeps the first run's value and fails the second check): eval forward, then (without
// dropout) train forward and backward, every output and gradient against the float64
// reference within its float32 bounds.
void check_case(const LayerCase& c, const BackendConfig& config);

// Compute with direct loads, compute with shared-memory tiles, transform feedback (every
// GPU kernel variant runs on llvmpipe as well as on GPUs), and the CPU backend.
std::vector<BackendConfig> all_backends();
std::string config_name(const ::testing::TestParamInfo<BackendConfig>& info);

// Random values of every parameter: weights and biases in +-0.5, gamma in [0.5, 1.5), beta
// in +-0.5, running means in +-0.2 and variances in [0.5, 1.5). Never zero.
std::vector<float> random_parameters(const nn::Sequential& model);

// Expects every got[i] within want.e[i] of want.v[i]; reports the first few misses with
// their index, values and bound. Returns the number of misses.
std::size_t expect_within(const std::vector<float>& got, const nnref::Array& want,
                          const std::string& what);

std::vector<int> random_labels(std::size_t n, std::size_t classes);

}  // namespace nntest
