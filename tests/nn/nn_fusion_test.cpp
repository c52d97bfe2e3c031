// A Conv2D with the MaxPool2D or AvgPool2D after it fused on the compute backend
// (BackendOptions::fuse_pooling, src/nn/compute/pool_fusion.hpp) against the same stages
// run apart, on fresh random inputs and parameters.
//
// What must hold, and why exactly: the fused GEMM sums each convolution output over k in
// the order the separate GEMM does (k ascending; neither splits k here: the forward GEMMs'
// k stays under 32, or both have the same shape and so the same tiling, with tuning off),
// and its epilogue applies the bias, the activation and the pooling with the pooling
// kernel's own operations in the same order (glsl/ops.hpp: pool_add, pool_value). Backward,
// glsl::pooled_gradient forms each convolution-output gradient with the products and the
// sum of the pooling's backward kernel times the activation's derivative, so the gradient
// GEMMs read the same values. So every output, input gradient and parameter gradient must
// be equal (float ==, under which +0 and -0 are equal: a zero's sign is all that may differ),
// in both backward forms (through a kernel, inside the GEMMs' loads), for direct and
// shared-memory kernels. Both the separate and the fused stages are held to the float64
// reference's bounds (tests/nn/reference.hpp: worst-case float32 error bounds per element)
// as well, so that both cannot be wrong alike.
//
// Shapes: odd planes (windows of the separate GEMM's rows straddle its row tiles, and a
// floor-mode pooling drops the last row and column), batch 1 and 3, padded and ceil-mode
// windows (clipped), windows with gaps (stride 3 over size 2), 1x1 windows, average pooling
// with and without an activation before it, two blocks with a k of 200, and an overlapping
// pooling that must stay apart. Then training on Fashion-MNIST gives the same parameters,
// losses and accuracy fused and apart; and the plan fuses only what the device's limits
// allow (es31-minimum: evaluation only; mali-g610-panfrost: training too). The kernels a
// fused plan compiles are checked against every profile's limits in nn_planner_limits_test.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "compute/pool_fusion.hpp"
#include "gpgpu/limits.hpp"
#include "model_state.hpp"
#include "nn_test_support.hpp"
#include "plan/stage_plan.hpp"

namespace {

namespace nn = gpgpu::nn;
using Fusion = nn::BackendOptions::Fusion;
using Kernels = nn::BackendOptions::Kernels;

struct FusionCase {
  std::string name;
  nn::Shape input;
  std::vector<nn::Layer> layers;
  std::size_t batch;
};

std::vector<FusionCase> cases() {
  using namespace nn;
  return {
      {"relu_maxpool2_odd_planes", {2, 13, 11}, {Conv2D{3, 3, 1, 1}, ReLU{}, MaxPool2D{2}}, 3},
      {"batch1_sigmoid_maxpool2", {1, 9, 10}, {Conv2D{4, 3, 1, 0}, Sigmoid{}, MaxPool2D{2}}, 1},
      {"leaky_maxpool2_padded_ceil",
       {2, 11, 9},
       {Conv2D{3, 3, 1, 1}, LeakyReLU{0.1f},
        MaxPool2D{.size = 2, .stride = 2, .padding = 1, .ceil_mode = true}},
       3},
      {"tanh_maxpool2_stride3", {1, 14, 13}, {Conv2D{2, 3, 1, 1}, Tanh{}, MaxPool2D{2, 3}}, 3},
      {"relu_avgpool2", {3, 10, 9}, {Conv2D{4, 3, 1, 1}, ReLU{}, AvgPool2D{2}}, 3},
      {"avgpool2_no_activation_ceil_exclude_pad",
       {2, 9, 11},
       {Conv2D{3, 3, 1, 1},
        AvgPool2D{.size = 2, .padding = 1, .ceil_mode = true, .count_include_pad = false}},
       3},
      {"clip_avgpool2_count_pad",
       {1, 8, 7},
       {Conv2D{2, 3, 1, 0}, Clip{-0.2f, 0.3f}, AvgPool2D{.size = 2, .padding = 1}},
       1},
      {"stride2_conv_1x1_windows_stride2",
       {2, 11, 11},
       {Conv2D{3, 3, 2, 1}, ReLU{}, MaxPool2D{1, 2}},
       3},
      {"two_blocks_k200",
       {1, 28, 28},
       {Conv2D{8, 5, 1, 2}, ReLU{}, MaxPool2D{2}, Conv2D{16, 5, 1, 2}, ReLU{}, MaxPool2D{2},
        Flatten{}, Dense{10}},
       3},
      {"overlapping_pool_stays_apart", {2, 9, 9}, {Conv2D{3, 3, 1, 1}, ReLU{}, MaxPool2D{3, 2}}, 3},
  };
}

struct Results {
  std::vector<float> eval, train, dx, grads;
};

Results run(nn::Sequential& model, const nn::BackendOptions& options, const FusionCase& c,
            const std::vector<float>& x, const std::vector<float>& dy) {
  auto& ctx = gpgpu::test::context();
  model.set_backend(nn::Backend::Compute, options);
  const auto input = nn::Tensor::from(ctx, c.input.with_batch(c.batch), x);
  Results r;
  r.eval = model.forward(input, nn::Mode::Eval).to_vector();
  r.train = model.forward(input, nn::Mode::Train).to_vector();
  r.dx = model.backward(nn::Tensor::from(ctx, model.output_shape().with_batch(c.batch), dy))
             .to_vector();
  r.grads = model.gradient_values();
  return r;
}

// Every got[i] == want[i] (+0 == -0); the first few differences reported.
void expect_equal(const std::vector<float>& got, const std::vector<float>& want,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t misses = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) continue;
    if (misses++ < 5) {
      ADD_FAILURE() << what << "[" << i << "] = " << got[i] << " fused, " << want[i] << " apart";
    }
  }
  EXPECT_EQ(misses, 0u) << what << ": " << misses << " of " << got.size() << " differ";
}

// The stages apart run as implicit GEMMs here, as the fused ones do: on the shared-memory
// kernels a stride-1 convolution apart would otherwise be a staged convolution
// (src/nn/compute/staged_conv.hpp), which never splits k where a fused GEMM may (the k-200
// block), so the two would differ in the last bits. nn_layers_compute_shared_test holds the
// staged convolutions to the float64 reference.
class NnFusion : public ::testing::TestWithParam<Kernels> {
 protected:
  void SetUp() override { setenv("GPGPU_NN_CONV", "gemm", 1); }
  void TearDown() override { unsetenv("GPGPU_NN_CONV"); }
};

void check_case(const FusionCase& c, Kernels kernels) {
  SCOPED_TRACE(c.name);
  auto& ctx = gpgpu::test::context();
  nn::Sequential model(ctx, c.input);
  for (const auto& l : c.layers) model.add(l);
  const auto params = nntest::random_parameters(model);
  model.set_parameter_values(params);
  const auto x = gpgpu::test::random_floats(c.batch * c.input.size());
  const auto dy = gpgpu::test::random_floats(c.batch * model.output_shape().size());
  nn::BackendOptions options{.kernels = kernels, .autotune = false};
  options.fuse_pooling = Fusion::Off;
  const Results apart = run(model, options, c, x, dy);
  // The stages run apart are right: the float64 reference and its float32 bounds.
  const auto exact = nnref::Array::exact(x);
  const auto eval = nnref::net_forward(model, c.batch, exact, params, false);
  nntest::expect_within(apart.eval, eval.inputs.back(), "eval output apart");
  const auto trace = nnref::net_forward(model, c.batch, exact, params, true);
  const auto grads =
      nnref::net_backward(model, c.batch, trace, nnref::Array::exact(dy), params, true);
  nntest::expect_within(apart.dx, grads.dx, "input gradient apart");
  nntest::expect_within(apart.grads, grads.flat, "parameter gradients apart");
  for (const Fusion fusion : {Fusion::GradientKernel, Fusion::GradientInLoads}) {
    SCOPED_TRACE(fusion == Fusion::GradientKernel ? "gradient kernel" : "gradient in the loads");
    options.fuse_pooling = fusion;
    // Twice: buffers reused, so an element a fused kernel fails to write keeps the first
    // run's value (from other random inputs) and differs.
    for (int round = 0; round < 2; ++round) {
      const auto x2 = round == 0 ? x : gpgpu::test::random_floats(x.size());
      const auto dy2 = round == 0 ? dy : gpgpu::test::random_floats(dy.size());
      const Results fused = run(model, options, c, x2, dy2);
      const Results want = round == 0 ? apart : [&] {
        auto o = options;
        o.fuse_pooling = Fusion::Off;
        return run(model, o, c, x2, dy2);
      }();
      if (round == 0) {  // the fused stages against the float64 reference too
        nntest::expect_within(fused.eval, eval.inputs.back(), "eval output fused");
        nntest::expect_within(fused.train, trace.inputs.back(), "train output fused");
        nntest::expect_within(fused.dx, grads.dx, "input gradient fused");
        nntest::expect_within(fused.grads, grads.flat, "parameter gradients fused");
      }
      expect_equal(fused.eval, want.eval, "eval output");
      expect_equal(fused.train, want.train, "train output");
      expect_equal(fused.dx, want.dx, "input gradient");
      expect_equal(fused.grads, want.grads, "parameter gradients");
    }
  }
}

TEST_P(NnFusion, FusedStagesGiveTheValuesOfTheStagesRunApart) {
  for (const auto& c : cases()) check_case(c, GetParam());
}

// The "small" built-in net (two conv-pool blocks) trained for one epoch of 960 images, fused
// (Auto: on GPUs the first block's gradient inside its weight-gradient GEMM's loads, the
// second's through the kernel, on llvmpipe apart; and each backward form everywhere) and apart: the
// same parameters after every step's update, the same losses, and the same test accuracy (and a net
// that learned: > 50% on 500 test images after 30 steps).
TEST_P(NnFusion, TrainingFusedReachesTheParametersAndAccuracyOfTrainingApart) {
  auto& ctx = gpgpu::test::context();
  const auto dir = nn::default_data_dir();
  ASSERT_TRUE(std::filesystem::exists(dir)) << dir << " is missing (scripts/install-deps.sh)";
  const auto train = nn::load_idx_dataset(dir, "train").first(960);
  const auto test = nn::load_idx_dataset(dir, "t10k").first(500);
  nn::DeviceDataset device_train(ctx, train), device_test(ctx, test);
  nn::TrainOptions options = nn::builtin_net(ctx, "small", train.sample_shape(), 10).options;
  options.seed = 3;
  struct Run {
    std::vector<float> params;
    std::vector<double> losses;
    double accuracy = 0;
  };
  auto run_with = [&](Fusion fusion) {
    auto model = nn::builtin_net(ctx, "small", train.sample_shape(), 10).model;
    nn::BackendOptions backend{.kernels = GetParam(), .autotune = false};
    backend.fuse_pooling = fusion;
    model.set_backend(nn::Backend::Compute, backend);
    model.set_normalization(nn::normalization_of(train));
    model.initialize(7);
    nn::Trainer trainer(model, device_train, options);
    const auto epoch = trainer.run_epoch();
    Run r;
    r.params = model.parameter_values();
    r.losses = {epoch.loss_curve.begin(), epoch.loss_curve.end()};
    r.accuracy = nn::evaluate(model, device_test, 100).accuracy();
    return r;
  };
  const Run apart = run_with(Fusion::Off);
  EXPECT_GT(apart.accuracy, 0.5);
  for (const Fusion fusion : {Fusion::Auto, Fusion::GradientKernel, Fusion::GradientInLoads}) {
    SCOPED_TRACE(static_cast<int>(fusion));
    const Run fused = run_with(fusion);
    expect_equal(fused.params, apart.params, "parameters after training");
    EXPECT_EQ(fused.losses, apart.losses);
    EXPECT_EQ(fused.accuracy, apart.accuracy);
  }
}

std::string kernels_name(const ::testing::TestParamInfo<Kernels>& p) {
  return p.param == Kernels::Direct ? "direct" : "shared";
}
INSTANTIATE_TEST_SUITE_P(Kernels, NnFusion,
                         ::testing::Values(Kernels::Direct, Kernels::SharedMemory), kernels_name);

// Which pairs a plan fuses: pairs whose windows are 1x1 or 2x2 and do not overlap; in
// training only where a kernel binds 6 storage buffers (es31-minimum binds 4: evaluation
// fuses, training runs apart; mali-g610-panfrost binds at least 6: both fuse); nothing when off.
// Auto reads the gradient in the loads for a first layer and through the kernel where an input
// gradient GEMM reads it too.
TEST(NnFusionPlan, FusesWhatTheDeviceLimitsAllow) {
  auto& ctx = gpgpu::test::context();
  nn::Sequential model(ctx, {1, 28, 28});
  const auto all = cases();
  for (const auto& l : all[8].layers) model.add(l);  // two_blocks_k200
  const auto plan = [&](nn::Mode mode) {
    return nn::detail::make_stage_plan(model.state(), {8, mode, true, false});
  };
  // The profiles clamp a large GPU's limits (not this context's, which GPGPU_LIMITS may clamp).
  gpgpu::DeviceInfo large = ctx.info();
  large.max_compute_shader_storage_blocks = 16;
  large.max_combined_shader_storage_blocks = large.max_shader_storage_buffer_bindings = 96;
  large.is_software = false;
  const auto es31 = gpgpu::clamp_to_profile(large, gpgpu::limit_profile("es31-minimum"));
  const auto mali = gpgpu::clamp_to_profile(large, gpgpu::limit_profile("mali-g610-panfrost"));
  const nn::BackendOptions automatic{.fuse_pooling = Fusion::Auto}, off;
  EXPECT_EQ(off.fuse_pooling, Fusion::Off);  // the default (docs/nn.md: measured slower)
  EXPECT_EQ(nn::detail::pool_fusions(plan(nn::Mode::Train), es31, automatic).size(), 0u);
  EXPECT_EQ(nn::detail::pool_fusions(plan(nn::Mode::Eval), es31, automatic).size(), 2u);
  EXPECT_EQ(nn::detail::pool_fusions(plan(nn::Mode::Eval), mali, off).size(), 0u);
  const auto fused = nn::detail::pool_fusions(plan(nn::Mode::Train), mali, automatic);
  ASSERT_EQ(fused.size(), 2u);
  EXPECT_EQ(fused[0].conv, 0u);
  EXPECT_EQ(fused[0].pool, 1u);
  EXPECT_EQ(fused[0].window, 4);
  EXPECT_FALSE(fused[0].gradient_kernel);  // the first layer: no input gradient
  EXPECT_TRUE(fused[1].gradient_kernel);
  EXPECT_FALSE(fused[1].pre_pool);

  // Auto leaves software rasterizers apart; a backward form asked for fuses there too.
  gpgpu::DeviceInfo software = mali;
  software.is_software = true;
  EXPECT_EQ(nn::detail::pool_fusions(plan(nn::Mode::Eval), software, automatic).size(), 0u);
  const nn::BackendOptions loads{.fuse_pooling = Fusion::GradientInLoads};
  EXPECT_EQ(nn::detail::pool_fusions(plan(nn::Mode::Train), software, loads).size(), 2u);

  // GPGPU_NN_FUSE overrides the option for the process; an unknown value is refused by name.
  ASSERT_EQ(setenv("GPGPU_NN_FUSE", "off", 1), 0);
  EXPECT_EQ(nn::detail::pool_fusions(plan(nn::Mode::Train), mali, automatic).size(), 0u);
  ASSERT_EQ(setenv("GPGPU_NN_FUSE", "kernel", 1), 0);
  const auto kernel_only = nn::detail::pool_fusions(plan(nn::Mode::Train), mali, off);
  ASSERT_EQ(kernel_only.size(), 2u);
  EXPECT_TRUE(kernel_only[0].gradient_kernel);
  ASSERT_EQ(setenv("GPGPU_NN_FUSE", "of", 1), 0);
  EXPECT_THROW(nn::detail::pool_fusions(plan(nn::Mode::Eval), mali, automatic),
               gpgpu::ArgumentError);
  ASSERT_EQ(unsetenv("GPGPU_NN_FUSE"), 0);

  nn::Sequential overlapping(ctx, {1, 9, 9});
  overlapping.add(nn::Conv2D{2, 3}).add(nn::AvgPool2D{3, 2});
  EXPECT_TRUE(nn::detail::pool_fusions(nn::detail::make_stage_plan(
                                           overlapping.state(), {2, nn::Mode::Eval, false, false}),
                                       mali, automatic)
                  .empty());
  nn::Sequential averaged(ctx, {1, 9, 9});
  averaged.add(nn::Conv2D{2, 3}).add(nn::Tanh{}).add(nn::AvgPool2D{2});
  const auto avg = nn::detail::pool_fusions(
      nn::detail::make_stage_plan(averaged.state(), {2, nn::Mode::Train, false, false}), mali,
      automatic);
  ASSERT_EQ(avg.size(), 1u);
  EXPECT_TRUE(avg[0].pre_pool);  // tanh's derivative needs its outputs
}

}  // namespace
