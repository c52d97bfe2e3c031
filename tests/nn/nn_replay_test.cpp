// The compute backend replays each plan's forward and backward passes from a recorded
// gpgpu::Sequence (BackendOptions::replay): training steps and inference so replayed give the
// bits of the same steps with every kernel run on its own. Two models from the same seed,
// one with replay on and one with it off, train on the same 320 Fashion-MNIST images (10
// steps: the first runs, the second records, the rest replay) and classify 300 test images in
// batches of 100: parameters, loss curves, predictions and loss sums must agree exactly.
#include <bit>
#include <cstdint>
#include <filesystem>

#include "nn_test_support.hpp"

namespace {

namespace nn = gpgpu::nn;

// A net with batch normalisation (its statistics kernels and running averages too), and
// the "small" built-in one; no dropout, whose passes are not replayed.
nn::Sequential with_batchnorm(const gpgpu::Context& ctx) {
  nn::Sequential model(ctx, {1, 28, 28});
  model.add(nn::Conv2D{6, 5, 1, 2})
      .add(nn::BatchNorm{})
      .add(nn::ReLU{})
      .add(nn::MaxPool2D{2})
      .add(nn::Flatten{})
      .add(nn::Dense{32})
      .add(nn::Tanh{})
      .add(nn::Dense{10});
  return model;
}

class NnReplay : public ::testing::TestWithParam<const char*> {};

TEST_P(NnReplay, StepsReplayedGiveTheBitsOfStepsRunOneByOne) {
  auto& ctx = gpgpu::test::context();
  const auto dir = nn::default_data_dir();
  ASSERT_TRUE(std::filesystem::exists(dir)) << dir << " is missing (scripts/install-deps.sh)";
  const auto train = nn::load_idx_dataset(dir, "train").first(320);
  const auto test = nn::load_idx_dataset(dir, "t10k").first(300);
  nn::DeviceDataset device_train(ctx, train), device_test(ctx, test);
  const std::string net = GetParam();
  nn::TrainOptions options = nn::builtin_net(ctx, "small", train.sample_shape(), 10).options;
  options.report_every = 2;
  options.seed = 5;
  std::vector<float> params[2];
  std::vector<double> losses[2];
  std::vector<int> predictions[2];
  double loss_sum[2] = {0, 0};
  for (int replay = 0; replay < 2; ++replay) {
    auto model = net == "small" ? nn::builtin_net(ctx, "small", train.sample_shape(), 10).model
                                : with_batchnorm(ctx);
    nn::BackendOptions backend;
    backend.replay = replay == 1;
    model.set_backend(nn::Backend::Compute, backend);
    model.set_normalization(nn::normalization_of(train));
    model.initialize(11);
    nn::Trainer trainer(model, device_train, options);
    const auto epoch = trainer.run_epoch();
    ASSERT_EQ(epoch.steps, 10u);
    losses[replay] = {epoch.loss_curve.begin(), epoch.loss_curve.end()};
    params[replay] = model.parameter_values();
    const auto eval = nn::evaluate(model, device_test, 100);
    predictions[replay] = eval.predictions;
    loss_sum[replay] = eval.stats.loss_sum;
  }
  ASSERT_EQ(params[0].size(), params[1].size());
  for (std::size_t i = 0; i < params[0].size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(params[1][i]),
              std::bit_cast<std::uint32_t>(params[0][i]))
        << "parameter " << i << ": " << params[1][i] << " replayed, " << params[0][i] << " run";
  }
  EXPECT_EQ(losses[1], losses[0]);
  EXPECT_EQ(predictions[1], predictions[0]);
  EXPECT_EQ(loss_sum[1], loss_sum[0]);
}

INSTANTIATE_TEST_SUITE_P(Nets, NnReplay, ::testing::Values("small", "batchnorm"));

}  // namespace
