// The transform-feedback backend's stages: Dense and Conv2D as direct loops (tf_kernels.hpp),
// batch normalisation, and the element-wise stages shared with the compute backend
// (glsl/element_stage.hpp).
#include <fmt/format.h>

#include "glsl/snippets.hpp"
#include "glsl/stage_defines.hpp"
#include "gpgpu/error.hpp"
#include "tf_common.hpp"
#include "tf_kernels.hpp"

namespace gpgpu::nn::detail {

TfArray::TfArray(const Context& context, std::size_t count)
    : buffer(context, ElementType::Float32, count),
      texture(Texture::array(context, TexelType::Float, count)) {}

TransformFeedbackKernel make_tf_kernel(const Context& context, const std::string& body,
                                       const Defines& defines, std::string label) {
  return TransformFeedbackKernel(context, kernel_prelude(transform_feedback_access) + body, defines,
                                 std::move(label));
}

std::size_t TfStageContext::parameter_index(std::size_t offset) const {
  return parameter_at.at(offset);
}

namespace {

std::string label_of(const Stage& stage) {
  return fmt::format("nn tf {} (layer {})", layer_type(stage.spec), stage.layer);
}

// Dense and Conv2D: forward, weight and bias gradients, input gradient.
class TfLinearRunner final : public StageKernels {
 public:
  TfLinearRunner(const TfStageContext& sc, const Stage& stage, TfStageArrays a)
      : sc_(sc),
        path_(sc.path()),
        stage_(stage),
        a_(a),
        when_(glsl::Conditions::of(stage, sc.mode)) {
    const bool conv = stage.kind == Stage::Kind::Conv;
    const Defines d = stage_defines(stage, sc.batch, sc.mode);
    const auto label = label_of(stage);
    forward_.emplace(path_.kernel(conv ? tf::conv_forward : tf::dense_forward, d, label));
    if (a.dy != nullptr) {
      weight_grad_.emplace(path_.kernel(conv ? tf::conv_weight_gradient : tf::dense_weight_gradient,
                                        d, label + " weight gradient"));
      bias_grad_.emplace(path_.kernel(conv ? tf::conv_bias_gradient : tf::dense_bias_gradient, d,
                                      label + " bias gradient"));
    }
    if (a.dx != nullptr) {
      input_grad_.emplace(path_.kernel(conv ? tf::conv_input_gradient : tf::dense_input_gradient, d,
                                       label + " input gradient"));
    }
  }
  void forward(std::uint32_t) override {
    forward_->run({{"x", a_.x->texture}, {"p", sc_.params}, {"y", a_.y->buffer}});
  }
  void backward() override {
    weight_grad_->run({{"dy", a_.dy->texture},
                       {"x", a_.x->texture},
                       {"g", sc_.gradients[sc_.parameter_index(stage_.offsets[0])]}});
    bias_grad_->run(
        {{"dy", a_.dy->texture}, {"g", sc_.gradients[sc_.parameter_index(stage_.offsets[1])]}});
    if (input_grad_) {
      const auto& k =
          stage_.kind == Stage::Kind::Conv ? tf::conv_input_gradient : tf::dense_input_gradient;
      input_grad_->run(bind_operands(path_, k, when_, {{"dy", a_.dy}, {"dx", a_.dx}, {"xin", a_.x}},
                                     {{"p", sc_.params}}));
    }
  }

 private:
  TfStageContext sc_;
  TfPath path_;
  const Stage& stage_;
  TfStageArrays a_;
  glsl::Conditions when_;
  std::optional<TransformFeedbackKernel> forward_, weight_grad_, bias_grad_, input_grad_;
};

class TfBatchNormRunner final : public StageKernels {
 public:
  TfBatchNormRunner(const TfStageContext& sc, const Stage& stage, TfStageArrays a)
      : sc_(sc),
        path_(sc.path()),
        stage_(stage),
        a_(a),
        when_(glsl::Conditions::of(stage, sc.mode)),
        channels_(stage.channels()) {
    const Defines d = stage_defines(stage, sc.batch, sc.mode);
    const auto label = label_of(stage);
    normalize_.emplace(path_.kernel(glsl::batchnorm_normalize, d, label));
    if (when_.train) {
      stats_kernel_.emplace(path_.kernel(tf::batchnorm_stats, d, label + " statistics"));
      for (auto* b : {&mean_, &inv_std_, &running_mean_, &running_var_}) {
        *b = Buffer(sc.context, ElementType::Float32, channels_);
      }
      stats_ = TfArray(sc.context, 2 * channels_);
    }
    if (a.dy) {
      sums_kernel_.emplace(path_.kernel(tf::batchnorm_sums, d, label + " gradient sums"));
      sums_ = TfArray(sc.context, 2 * channels_);
    }
    if (a.dx) {
      input_.emplace(path_.kernel(glsl::batchnorm_input_gradient, d, label + " input gradient"));
    }
  }
  void forward(std::uint32_t) override {
    if (when_.train) {
      stats_kernel_->run({{"x", a_.x->texture},
                          {"p", sc_.params},
                          {"mean", mean_},
                          {"inv_std", inv_std_},
                          {"running_mean", running_mean_},
                          {"running_var", running_var_}});
      sc_.copier.to_texture(mean_, stats_.texture, 0);
      sc_.copier.to_texture(inv_std_, stats_.texture, channels_);
      sc_.copier.to_texture(running_mean_, sc_.params, stage_.offsets[2]);
      sc_.copier.to_texture(running_var_, sc_.params, stage_.offsets[3]);
    }
    normalize_->run(bind_operands(path_, glsl::batchnorm_normalize, when_,
                                  {{"x", a_.x}, {"y", a_.y}, {"stats", &stats_}},
                                  {{"p", sc_.params}}));
  }
  void backward() override {
    Buffer& gamma = sc_.gradients[sc_.parameter_index(stage_.offsets[0])];
    Buffer& beta = sc_.gradients[sc_.parameter_index(stage_.offsets[1])];
    sums_kernel_->run({{"x", a_.x->texture},
                       {"dy", a_.dy->texture},
                       {"stats", stats_.texture},
                       {"sum_dy", beta},
                       {"sum_dy_xhat", gamma}});
    sc_.copier.to_texture(beta, sums_.texture, 0);
    sc_.copier.to_texture(gamma, sums_.texture, channels_);
    if (input_) {
      input_->run(bind_operands(
          path_, glsl::batchnorm_input_gradient, when_,
          {{"x", a_.x}, {"dy", a_.dy}, {"dx", a_.dx}, {"stats", &stats_}, {"sums", &sums_}},
          {{"p", sc_.params}}));
    }
  }

 private:
  TfStageContext sc_;
  TfPath path_;
  const Stage& stage_;
  TfStageArrays a_;
  glsl::Conditions when_;
  std::size_t channels_;
  std::optional<TransformFeedbackKernel> stats_kernel_, normalize_, sums_kernel_, input_;
  Buffer mean_, inv_std_, running_mean_, running_var_;
  TfArray stats_, sums_;
};

}  // namespace

std::unique_ptr<StageKernels> make_tf_runner(const TfStageContext& sc, const Stage& stage,
                                             TfStageArrays arrays) {
  switch (stage.kind) {
    case Stage::Kind::Dense:
    case Stage::Kind::Conv:
      return std::make_unique<TfLinearRunner>(sc, stage, arrays);
    case Stage::Kind::BatchNorm:
      return std::make_unique<TfBatchNormRunner>(sc, stage, arrays);
    case Stage::Kind::Alias:
      return nullptr;
    default:
      return std::make_unique<ElementStage<TfPath>>(sc.path(), stage, sc.batch, sc.mode, arrays);
  }
}

}  // namespace gpgpu::nn::detail
