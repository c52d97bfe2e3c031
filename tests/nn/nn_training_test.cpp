// Whole networks: the three backends agree on the same weights; the backward pass is the
// derivative of the forward pass (finite differences of the device's own float32 forward);
// and training lowers the loss on a 512-image subset of Fashion-MNIST within a few steps. At
// OpenGL ES 3.1's texture size the transform-feedback backend refuses by name what its
// textures cannot hold.
#include <cmath>
#include <iostream>
#include <limits>
#include <numeric>

#include "nn_test_support.hpp"

namespace {

namespace nn = gpgpu::nn;

nn::Sequential small_net(const gpgpu::Context& ctx) {
  nn::Sequential model(ctx, {2, 9, 8});
  model.add(nn::Conv2D{4, 3, 1, 1})
      .add(nn::ReLU{})
      .add(nn::MaxPool2D{2})
      .add(nn::Conv2D{5, 3, 1, 0})
      .add(nn::Tanh{})
      .add(nn::AvgPool2D{2})
      .add(nn::Flatten{})
      .add(nn::Dense{7})
      .add(nn::Sigmoid{})
      .add(nn::Dense{3});
  return model;
}

// Every backend against the reference bound e, and so against each other within 2e: the
// same weights and inputs give the same outputs, input gradients and parameter gradients to
// within float32 rounding.
TEST(NnBackends, ComputeTransformFeedbackAndCpuAgree) {
  auto& ctx = gpgpu::test::context();
  auto model = small_net(ctx);
  const auto params = nntest::random_parameters(model);
  model.set_parameter_values(params);
  const std::size_t batch = 5;
  const auto x = gpgpu::test::random_floats(batch * model.input_shape().size());
  const auto dy = gpgpu::test::random_floats(batch * model.output_shape().size());
  const auto trace = nnref::net_forward(model, batch, nnref::Array::exact(x), params, true);
  const auto ref = nnref::net_backward(model, batch, trace, nnref::Array::exact(dy), params, true);
  std::vector<float> out[3], dx[3], grads[3];
  const nn::Backend backends[3] = {nn::Backend::Compute, nn::Backend::TransformFeedback,
                                   nn::Backend::Cpu};
  for (int b = 0; b < 3; ++b) {
    model.set_backend(backends[b]);
    out[b] = model
                 .forward(nn::Tensor::from(ctx, model.input_shape().with_batch(batch), x),
                          nn::Mode::Train)
                 .to_vector();
    dx[b] = model.backward(nn::Tensor::from(ctx, model.output_shape().with_batch(batch), dy))
                .to_vector();
    grads[b] = model.gradient_values();
    EXPECT_EQ(model.parameter_values(), params)
        << "switching backends must not change the parameters";
  }
  auto doubled = [](nnref::Array a) {
    for (auto& e : a.e) e *= 2;
    return a;
  };
  for (int b = 0; b < 3; ++b) {
    SCOPED_TRACE(nn::to_string(backends[b]));
    nntest::expect_within(out[b], trace.inputs.back(), "output");
    nntest::expect_within(dx[b], ref.dx, "input gradient");
    nntest::expect_within(grads[b], ref.flat, "parameter gradients");
  }
  // |other - compute| <= |other - exact| + |exact - compute| <= 2 e.
  auto as_array = [](const std::vector<float>& v, const nnref::Array& bounds) {
    nnref::Array a = nnref::Array::exact(v);
    a.e = bounds.e;
    return a;
  };
  for (int b = 1; b < 3; ++b) {
    SCOPED_TRACE(std::string(nn::to_string(backends[b])) + " vs compute");
    nntest::expect_within(out[b], doubled(as_array(out[0], trace.inputs.back())), "output");
    nntest::expect_within(dx[b], doubled(as_array(dx[0], ref.dx)), "input gradient");
    nntest::expect_within(grads[b], doubled(as_array(grads[0], ref.flat)), "gradients");
  }
}

// At OpenGL ES 3.1's minimum texture size (2048) a transform-feedback array holds at most
// 2048 x 2048 values: a batch whose activations need more is refused by name, where the
// compute backend runs it (its arrays are storage buffers): y = w x + b, one product and one
// sum each rounded once, errs by at most (2 eps32 + eps32^2)(|w x| + |b|) < 3 eps32 (...).
TEST(NnBackends, TransformFeedbackRefusesActivationsBeyondTheTextureSizeByName) {
  gpgpu::Context ctx({.limits = "es31-minimum"});
  nn::Sequential model(ctx, {1});
  model.add(nn::Dense{4096});
  const auto params = nntest::random_parameters(model);
  model.set_parameter_values(params);
  const std::size_t batch = 1100;  // 4,505,600 outputs > 2048 x 2048
  const auto x = gpgpu::test::random_floats(batch);
  const auto input = nn::Tensor::from(ctx, {batch, 1}, x);
  model.set_backend(nn::Backend::TransformFeedback);
  try {
    model.forward(input);
    ADD_FAILURE() << "the transform-feedback backend ran 4.5M activations under es31-minimum";
  } catch (const gpgpu::LimitError& e) {
    EXPECT_NE(std::string(e.what()).find("GL_MAX_TEXTURE_SIZE"), std::string::npos) << e.what();
  }
  model.set_backend(nn::Backend::Compute);
  const auto y = model.forward(input).to_vector();
  ASSERT_EQ(y.size(), batch * 4096);
  std::size_t misses = 0;
  for (std::size_t n = 0; n < batch; ++n) {
    for (std::size_t o = 0; o < 4096; ++o) {
      const double wx = static_cast<double>(params[o]) * x[n], b = params[4096 + o];
      const double bound = 3 * gpgpu::test::eps32 * (std::abs(wx) + std::abs(b));
      if (std::abs(y[n * 4096 + o] - (wx + b)) > bound && ++misses <= 5) {
        ADD_FAILURE() << "y[" << n << "][" << o << "] = " << y[n * 4096 + o] << ", want " << wx + b
                      << " +- " << bound;
      }
    }
  }
  EXPECT_EQ(misses, 0u);
}

// L(theta) = sum_i dy_i y_i(theta) for fixed random dy, so dL/dtheta is what backward(dy)
// returns. Along a direction u, the central difference (L(theta + h u) - L(theta - h u)) / 2h
// of the device's float32 forward passes must match g . u within
//   T + R:  T = 2 |FD64 - g64 . u|, twice the truncation error the float64 reference shows
//              for the same h (the third-derivative term h^2/6 L''' is the same function);
//           R = (sum_i |dy_i| (e_i(+) + e_i(-)) + 2 eps64) / 2h + sum_j |u_j| e_gj, the float32
//              forward bounds at both points over 2h, plus the gradient's bound along u.
// The net is smooth (tanh, sigmoid, average pooling) so that no kink lies within h.
class NnFiniteDifferences : public ::testing::TestWithParam<nntest::BackendConfig> {};

TEST_P(NnFiniteDifferences, BackwardIsTheDerivativeOfForward) {
  auto& ctx = gpgpu::test::context();
  nn::Sequential model(ctx, {1, 7, 7});
  model.add(nn::Conv2D{3, 3, 1, 1})
      .add(nn::Tanh{})
      .add(nn::AvgPool2D{2})
      .add(nn::Flatten{})
      .add(nn::Dense{6})
      .add(nn::Sigmoid{})
      .add(nn::Dense{4});
  model.set_backend(GetParam().backend, GetParam().options);
  const auto params = nntest::random_parameters(model);
  model.set_parameter_values(params);
  const std::size_t batch = 3;
  const auto x = gpgpu::test::random_floats(batch * 49);
  const auto dy = gpgpu::test::random_floats(batch * 4);
  const auto x_tensor = nn::Tensor::from(ctx, {batch, 1, 7, 7}, x);
  model.forward(x_tensor, nn::Mode::Train);
  model.backward(nn::Tensor::from(ctx, {batch, 4}, dy));
  const auto g = model.gradient_values();
  const auto ref_trace = nnref::net_forward(model, batch, nnref::Array::exact(x), params, true);
  const auto ref_grad =
      nnref::net_backward(model, batch, ref_trace, nnref::Array::exact(dy), params, true);

  auto loss_at = [&](const std::vector<float>& theta, double* bound) {
    model.set_parameter_values(theta);
    const auto y = model.forward(x_tensor, nn::Mode::Eval).to_vector();
    const auto t = nnref::net_forward(model, batch, nnref::Array::exact(x), theta, false);
    double l = 0, l64 = 0;
    *bound = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
      l += static_cast<double>(dy[i]) * y[i];
      l64 += dy[i] * t.inputs.back().v[i];
      *bound += std::abs(dy[i]) * t.inputs.back().e[i];
    }
    return std::make_pair(l, l64);
  };
  const double h = 1e-2;
  for (int direction = 0; direction < 6; ++direction) {
    // Direction 0: random over all parameters; then single coordinates, one per array.
    std::vector<double> u(params.size(), 0.0);
    if (direction == 0) {
      const auto r = gpgpu::test::random_floats(params.size());
      double norm = 0;
      for (float v : r) norm += static_cast<double>(v) * v;
      for (std::size_t j = 0; j < u.size(); ++j) u[j] = r[j] / std::sqrt(norm);
    } else {
      const auto& p =
          model.parameters()[static_cast<std::size_t>(direction - 1) % model.parameters().size()];
      u[p.offset + p.shape.size() / 2] = 1.0;
    }
    std::vector<float> plus(params), minus(params);
    for (std::size_t j = 0; j < u.size(); ++j) {
      plus[j] = static_cast<float>(params[j] + h * u[j]);
      minus[j] = static_cast<float>(params[j] - h * u[j]);
    }
    // The rounded steps differ slightly from h u: use the steps actually taken.
    double gu = 0, gu64 = 0, g_bound = 0, step_norm = 0;
    for (std::size_t j = 0; j < u.size(); ++j) {
      const double step = (static_cast<double>(plus[j]) - minus[j]) / 2;
      gu += g[j] * step / h;
      gu64 += ref_grad.flat.v[j] * step / h;
      g_bound += std::abs(step / h) * ref_grad.flat.e[j];
      step_norm += step * step;
    }
    double bound_plus = 0, bound_minus = 0;
    const auto [lp, lp64] = loss_at(plus, &bound_plus);
    const auto [lm, lm64] = loss_at(minus, &bound_minus);
    const double fd = (lp - lm) / (2 * h), fd64 = (lp64 - lm64) / (2 * h);
    const double truncation = 2 * std::abs(fd64 - gu64);
    const double rounding = (bound_plus + bound_minus) / (2 * h) + g_bound + 1e-12;
    EXPECT_LE(std::abs(fd - gu), truncation + rounding)
        << "direction " << direction << ": finite difference " << fd << ", backward " << gu
        << " (float64: " << fd64 << " vs " << gu64 << ")";
    // And the reference's own backward matches its forward (truncation is O(h^2) ~ 1e-5 of
    // the second-derivative scale here).
    EXPECT_NEAR(fd64, gu64, 1e-3 * (std::abs(gu64) + 1e-2)) << "direction " << direction;
  }
  model.set_parameter_values(params);
}

// Plus the shared-memory kernels with autotuning, whose first run of each GEMM times every
// candidate tiling (results must be right whichever is kept; no time budget, so that every
// GEMM this process meets first is tuned).
std::vector<nntest::BackendConfig> backends_and_autotuning() {
  auto configs = nntest::all_backends();
  configs.push_back({"compute_shared_autotuned",
                     nn::Backend::Compute,
                     {.kernels = nn::BackendOptions::Kernels::SharedMemory,
                      .autotune = true,
                      .autotune_seconds = std::numeric_limits<double>::infinity()}});
  return configs;
}

INSTANTIATE_TEST_SUITE_P(Backends, NnFiniteDifferences,
                         ::testing::ValuesIn(backends_and_autotuning()), nntest::config_name);

// Training on the first 512 Fashion-MNIST images (16 steps of 32): the loss of the last
// report interval is below 80% of the first one's (it starts near ln 10 = 2.30; seeds are
// fixed, so the run is the same every time up to float rounding), and the accuracy on 300
// test images is well above chance (10%). On the backends as they run by default
// (the shared-memory kernels' training is covered by the layer tests).
class NnLossFalls : public ::testing::TestWithParam<nntest::BackendConfig> {};

TEST_P(NnLossFalls, OnA512ImageSubset) {
  auto& ctx = gpgpu::test::context();
  const auto dir = nn::default_data_dir();
  ASSERT_TRUE(std::filesystem::exists(dir))
      << dir << " is missing: install Debian's dataset-fashion-mnist "
      << "(scripts/install-deps.sh) or set GPGPU_NN_DATA";
  const auto train = nn::load_idx_dataset(dir, "train").first(512);
  const auto test = nn::load_idx_dataset(dir, "t10k").first(300);
  auto recipe = nn::builtin_net(ctx, "small", train.sample_shape(), train.classes);
  recipe.model.set_backend(GetParam().backend, GetParam().options);
  recipe.model.set_normalization(nn::normalization_of(train));
  recipe.model.initialize(7);
  nn::DeviceDataset device_train(ctx, train), device_test(ctx, test);
  recipe.options.report_every = 4;
  recipe.options.seed = 3;
  nn::Trainer trainer(recipe.model, device_train, recipe.options);
  const auto first = trainer.run_epoch();
  ASSERT_EQ(first.loss_curve.size(), 4u);
  EXPECT_GT(first.loss_curve.front(), 1.8);
  EXPECT_LT(first.loss_curve.back(), 0.8 * first.loss_curve.front())
      << "loss curve " << testing::PrintToString(first.loss_curve);
  const auto eval = nn::evaluate(recipe.model, device_test, 128);
  std::cout << "loss curve " << testing::PrintToString(first.loss_curve) << ", test accuracy "
            << eval.accuracy() << "\n";
  EXPECT_GT(eval.accuracy(), 0.35);
  EXPECT_EQ(eval.predictions.size(), 300u);
  std::size_t confusion_total = 0;
  for (auto c : eval.confusion) confusion_total += c;
  EXPECT_EQ(confusion_total, 300u);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, NnLossFalls,
    ::testing::Values(nntest::BackendConfig{"compute", nn::Backend::Compute, {}},
                      nntest::BackendConfig{
                          "transform_feedback", nn::Backend::TransformFeedback, {}},
                      nntest::BackendConfig{"cpu", nn::Backend::Cpu, {}}),
    nntest::config_name);

}  // namespace
