#include "nn_test_support.hpp"

#include <cmath>
#include <random>

namespace nntest {

std::vector<BackendConfig> all_backends() {
  std::vector<BackendConfig> configs;
  configs.push_back({"compute_direct",
                     nn::Backend::Compute,
                     {.kernels = nn::BackendOptions::Kernels::Direct, .autotune = false}});
  configs.push_back({"compute_shared",
                     nn::Backend::Compute,
                     {.kernels = nn::BackendOptions::Kernels::SharedMemory, .autotune = false}});
  configs.push_back({"transform_feedback", nn::Backend::TransformFeedback, {}});
  // Three threads whatever the machine has: ranges split unevenly, and a batch smaller than
  // the pool leaves threads idle.
  configs.push_back({"cpu", nn::Backend::Cpu, {.threads = 3}});
  return configs;
}

std::string config_name(const ::testing::TestParamInfo<BackendConfig>& info) {
  return info.param.name;
}

std::vector<float> random_parameters(const nn::Sequential& model) {
  std::vector<float> values(model.parameter_count());
  for (const auto& p : model.parameters()) {
    float lo = -0.5f, hi = 0.5f;
    if (p.name == "gamma" || p.name == "running_var") {
      lo = 0.5f;
      hi = 1.5f;
    } else if (p.name == "running_mean") {
      lo = -0.2f;
      hi = 0.2f;
    }
    const auto v = gpgpu::test::random_floats(p.shape.size(), lo, hi);
    std::copy(v.begin(), v.end(), values.begin() + static_cast<std::ptrdiff_t>(p.offset));
  }
  return values;
}

std::size_t expect_within(const std::vector<float>& got, const nnref::Array& want,
                          const std::string& what) {
  EXPECT_EQ(got.size(), want.size()) << what;
  std::size_t misses = 0;
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    // The bound plus the smallest float32 normal, for values that round to 0 or denormals.
    const double bound = want.e[i] + 1.2e-38;
    if (!(std::abs(static_cast<double>(got[i]) - want.v[i]) <= bound)) {
      if (misses < 6) {
        ADD_FAILURE() << what << "[" << i << "] = " << got[i] << ", expected " << want.v[i]
                      << " within " << bound << " (off by " << std::abs(got[i] - want.v[i]) << ")";
      }
      ++misses;
    }
  }
  if (misses > 0)
    ADD_FAILURE() << what << ": " << misses << " of " << got.size()
                  << " values outside their bounds";
  return misses;
}

std::vector<int> random_labels(std::size_t n, std::size_t classes) {
  std::uniform_int_distribution<int> dist(0, static_cast<int>(classes) - 1);
  std::vector<int> labels(n);
  for (auto& l : labels) l = dist(gpgpu::test::rng());
  return labels;
}

namespace {

bool has_dropout(const LayerCase& c) {
  for (const auto& l : c.layers) {
    if (std::holds_alternative<nn::Dropout>(l)) return true;
  }
  return false;
}

}  // namespace

// Eval forward, then train forward and backward, checked against the reference.
void check_case(const LayerCase& c, const BackendConfig& config) {
  SCOPED_TRACE(c.name);
  auto& ctx = gpgpu::test::context();
  nn::Sequential model(ctx, c.input);
  for (const auto& l : c.layers) model.add(l);
  model.set_backend(config.backend, config.options);
  const bool train = !has_dropout(c);
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const auto params = nntest::random_parameters(model);
    model.set_parameter_values(params);
    const auto x = gpgpu::test::random_floats(c.batch * c.input.size());
    const auto x_tensor = nn::Tensor::from(ctx, c.input.with_batch(c.batch), x);
    const auto eval = nnref::net_forward(model, c.batch, nnref::Array::exact(x), params, false);
    nntest::expect_within(model.forward(x_tensor, nn::Mode::Eval).to_vector(), eval.inputs.back(),
                          "eval output");
    if (!train) continue;
    const auto trace = nnref::net_forward(model, c.batch, nnref::Array::exact(x), params, true);
    nntest::expect_within(model.forward(x_tensor, nn::Mode::Train).to_vector(), trace.inputs.back(),
                          "train output");
    const auto dy = gpgpu::test::random_floats(trace.inputs.back().size());
    const auto dx =
        model.backward(nn::Tensor::from(ctx, model.output_shape().with_batch(c.batch), dy));
    const auto grads =
        nnref::net_backward(model, c.batch, trace, nnref::Array::exact(dy), params, true);
    nntest::expect_within(dx.to_vector(), grads.dx, "input gradient");
    nntest::expect_within(model.gradient_values(), grads.flat, "parameter gradients");
  }
}

}  // namespace nntest
