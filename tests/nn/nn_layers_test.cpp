// Every layer, alone and in the fused combinations the backends make (Conv2D/Dense/
// BatchNorm + activation, pooling after an activation, softmax after tanh), forward in both
// modes and backward, against the float64 reference with its float32 bounds
// (tests/nn/reference.hpp says how each bound is derived). Shapes are odd on purpose:
// sizes that are not multiples of any tile, padding, strides 2 and 3, overlapping pools,
// and GEMMs large enough to be split along k.
//
// Each case runs twice on the same model with fresh inputs and parameters, so an output
// element a kernel failed to write keeps the first run's value and fails the second check
// (the buffers are reused: this is how outputs are poisoned through the public API).
#include <string>

#include "nn_test_support.hpp"

namespace {

namespace nn = gpgpu::nn;
using nntest::BackendConfig;
using nntest::LayerCase;

std::vector<LayerCase> cases() {
  using namespace nn;
  return {
      {"dense", {7}, {Dense{3}}, 5},
      {"dense_relu", {13}, {Dense{9}, ReLU{}}, 6},
      {"dense_sigmoid", {11}, {Dense{6}, Sigmoid{}}, 3},
      {"dense_tanh", {5}, {Dense{17}, Tanh{}}, 4},
      {"dense_wide_split_k", {300}, {Dense{70}}, 37},
      {"conv3x3_pad1_relu", {2, 7, 9}, {Conv2D{5, 3, 1, 1}, ReLU{}}, 3},
      {"conv5x5_pad2_stride2", {3, 11, 10}, {Conv2D{4, 5, 2, 2}}, 2},
      {"conv4x4_stride3_tanh", {1, 13, 14}, {Conv2D{3, 4, 3, 0}, Tanh{}}, 2},
      {"conv1x1", {6, 5, 5}, {Conv2D{2, 1, 1, 0}}, 2},
      {"conv_long_k", {1, 18, 18}, {Conv2D{3, 3, 1, 0}, ReLU{}}, 8},
      // A first layer's weight gradient (10 x 3 outputs, k = 12 x 784 positions): split into
      // more than 128 parts, which the wide split-K sum adds (gemm.cpp).
      {"conv_first_layer_wide_split", {1, 28, 28}, {Conv2D{3, 3, 1, 1}, ReLU{}}, 12},
      {"conv_relu_maxpool_odd", {2, 9, 7}, {Conv2D{3, 3, 1, 1}, ReLU{}, MaxPool2D{2}}, 2},
      {"conv_sigmoid_maxpool3_stride2",
       {1, 9, 9},
       {Conv2D{2, 3, 1, 1}, Sigmoid{}, MaxPool2D{3, 2}},
       2},
      {"avgpool2", {3, 6, 5}, {AvgPool2D{2}}, 2},
      {"conv_avgpool3_stride1", {2, 7, 7}, {Conv2D{2, 2, 1, 0}, AvgPool2D{3, 1}}, 2},
      {"maxpool_then_relu", {2, 8, 8}, {MaxPool2D{2}, ReLU{}}, 3},
      {"avgpool_then_sigmoid", {1, 6, 6}, {AvgPool2D{2}, Sigmoid{}}, 2},
      {"flatten_tanh", {2, 3, 3}, {Flatten{}, Tanh{}}, 3},
      {"conv_batchnorm_relu", {2, 6, 5}, {Conv2D{3, 3, 1, 1}, BatchNorm{}, ReLU{}}, 4},
      {"dense_batchnorm_tanh", {9}, {Dense{7}, BatchNorm{0.2f, 1e-3f}, Tanh{}}, 10},
      {"dense_softmax", {6}, {Dense{5}, Softmax{}}, 4},
      {"dense_tanh_softmax", {8}, {Dense{4}, Tanh{}, Softmax{}}, 3},
      {"dropout_is_identity_in_eval", {10}, {Dense{6}, ReLU{}, Dropout{0.5f}, Dense{3}}, 4},
      {"small_cnn",
       {1, 12, 11},
       {Conv2D{4, 3, 1, 1}, ReLU{}, MaxPool2D{2}, Conv2D{6, 3, 1, 0}, ReLU{}, AvgPool2D{2},
        Flatten{}, Dense{8}, Sigmoid{}, Dense{3}},
       3},
      // Batch 1: a single image through every kind of stage (one thread of a pool busy).
      {"batch1_cnn",
       {2, 9, 7},
       {Conv2D{3, 3, 2, 1}, BatchNorm{}, ReLU{}, MaxPool2D{2, 1}, Conv2D{4, 1, 1, 0}, Tanh{},
        Flatten{}, Dense{5}, Softmax{}},
       1},
      {"batch1_dense", {13}, {Dense{6}, Sigmoid{}, Dense{4}, ReLU{}}, 1},
      // The layers ONNX import needs: asymmetric padding (TensorFlow's "same" with even
      // kernels or stride 2), padded and ceil-mode pooling, global average pooling,
      // LeakyReLU and Clip (ReLU6) alone and fused.
      {"conv_asymmetric_pads_leaky",
       {2, 9, 8},
       {Conv2D{.filters = 3, .kernel = 4, .stride = 2, .pads = Padding{1, 0, 2, 1}},
        LeakyReLU{0.1f}},
       3},
      {"conv_pads_top_left_only_clip",
       {1, 7, 7},
       {Conv2D{.filters = 2, .kernel = 3, .pads = Padding{2, 1, 0, 0}}, Clip{-0.3f, 0.4f}},
       2},
      {"maxpool_pad1_stride2_ceil",
       {2, 7, 6},
       {MaxPool2D{.size = 3, .stride = 2, .padding = 1, .ceil_mode = true}},
       2},
      {"maxpool_ceil_last_window_dropped",
       {1, 9, 10},
       {MaxPool2D{.size = 2, .stride = 3, .ceil_mode = true}},
       2},
      {"avgpool_pad1_ceil_count_pad",
       {2, 8, 7},
       {AvgPool2D{.size = 3, .stride = 2, .padding = 1, .ceil_mode = true}},
       2},
      {"avgpool_asymmetric_pads_exclude_pad",
       {3, 6, 7},
       {AvgPool2D{.size = 3, .stride = 2, .pads = Padding{0, 1, 2, 1}, .count_include_pad = false}},
       2},
      {"conv_relu_globalavgpool_dense",
       {2, 7, 5},
       {Conv2D{4, 3, 1, 1}, ReLU{}, GlobalAvgPool2D{}, Flatten{}, Dense{3}},
       3},
      {"dense_relu6_then_leaky", {9}, {Dense{7}, Clip{0.0f, 6.0f}, LeakyReLU{0.2f}, Dense{4}}, 4},
      {"batchnorm_leaky_maxpool_padded",
       {2, 6, 6},
       {BatchNorm{}, LeakyReLU{0.05f}, MaxPool2D{.size = 2, .stride = 2, .padding = 1}},
       3},
  };
}

class NnLayers : public ::testing::TestWithParam<BackendConfig> {};

TEST_P(NnLayers, ForwardAndBackwardMatchTheFloat64Reference) {
  for (const auto& c : cases()) nntest::check_case(c, GetParam());
}

// BatchNorm in training updates its running statistics as PyTorch does (unbiased variance).
TEST_P(NnLayers, BatchNormUpdatesRunningStatistics) {
  auto& ctx = gpgpu::test::context();
  nn::Sequential model(ctx, {3, 5, 4});
  model.add(nn::BatchNorm{0.3f, 1e-4f});
  model.set_backend(GetParam().backend, GetParam().options);
  const auto params = nntest::random_parameters(model);
  model.set_parameter_values(params);
  const std::size_t batch = 6;
  const auto x = gpgpu::test::random_floats(batch * 60, -2.0f, 3.0f);
  model.forward(nn::Tensor::from(ctx, {batch, 3, 5, 4}, x), nn::Mode::Train);
  const auto after = model.parameter_values();
  const auto ref =
      nnref::forward(model.layers()[0], model.input_shape(), batch, nnref::Array::exact(x),
                     nnref::layer_params(model, 0, params), true);
  for (const auto& p : model.parameters()) {
    if (p.trainable) continue;
    const auto& want = p.name == "running_mean" ? ref.running_mean : ref.running_var;
    for (std::size_t c = 0; c < 3; ++c) {
      // running = 0.7 old + 0.3 batch: the batch statistic's bound (mean: (N + 2) eps mean|x|;
      // variance: (N + 3) eps mean((x - mean)^2) plus the mean's error) times 0.3, plus 4
      // roundings of the result. Taken generously as 64 N eps |running|.
      const double n = batch * 20.0;
      EXPECT_NEAR(after[p.offset + c], want[c], 64 * n * nnref::eps * (std::abs(want[c]) + 1))
          << p.name << " of channel " << c;
    }
  }
}

// Dropout in training: every output is 0 or x / (1 - rate); about `rate` of them are 0;
// the backward pass zeroes the same elements and scales the rest; the mask changes per step.
TEST_P(NnLayers, DropoutDropsScalesAndBackpropagatesTheSameMask) {
  auto& ctx = gpgpu::test::context();
  const float rate = 0.3f;
  nn::Sequential model(ctx, {4000});
  model.add(nn::Dropout{rate});
  model.set_backend(GetParam().backend, GetParam().options);
  const std::size_t batch = 2, n = batch * 4000;
  const auto x = gpgpu::test::random_floats(n, 0.5f, 2.0f);
  const auto x_tensor = nn::Tensor::from(ctx, {batch, 4000}, x);
  std::vector<float> first_mask;
  for (int step = 0; step < 2; ++step) {
    const auto y = model.forward(x_tensor, nn::Mode::Train).to_vector();
    const auto dy = gpgpu::test::random_floats(n, 0.5f, 2.0f);
    const auto dx = model.backward(nn::Tensor::from(ctx, {batch, 4000}, dy)).to_vector();
    std::size_t dropped = 0, wrong = 0;
    std::vector<float> mask(n);
    const double scale = 1.0 / (1.0 - rate);
    for (std::size_t i = 0; i < n; ++i) {
      mask[i] = y[i] == 0.0f ? 0.0f : 1.0f;
      if (y[i] == 0.0f) {
        ++dropped;
        wrong += dx[i] != 0.0f;
      } else {
        // One rounding of x * scale, one of dy * scale (scale itself rounded once).
        wrong += std::abs(y[i] - x[i] * scale) > 3 * nnref::eps * std::abs(x[i] * scale);
        wrong += std::abs(dx[i] - dy[i] * scale) > 3 * nnref::eps * std::abs(dy[i] * scale);
      }
    }
    EXPECT_EQ(wrong, 0u);
    // 8000 Bernoulli(0.3) draws: mean 2400, standard deviation 41; 6 sigma either side.
    EXPECT_NEAR(static_cast<double>(dropped), rate * n, 6 * std::sqrt(n * rate * (1 - rate)));
    if (step == 0) {
      first_mask = mask;
    } else {
      EXPECT_NE(mask, first_mask) << "the dropout mask must change from step to step";
    }
  }
  // Evaluation: the identity.
  EXPECT_EQ(model.forward(x_tensor, nn::Mode::Eval).to_vector(), x);
}

// One executable per backend variant (NN_LAYERS_BACKEND indexes nntest::all_backends()), so
// that each stays within a couple of minutes on llvmpipe.
INSTANTIATE_TEST_SUITE_P(Backends, NnLayers,
                         ::testing::Values(nntest::all_backends().at(NN_LAYERS_BACKEND)),
                         nntest::config_name);

}  // namespace
