// The transform-feedback backend's stages: each layer's vertex shaders and the arrays they
// read and write (kernels in tf_kernels.hpp).
#include <fmt/format.h>

#include "glsl_common.hpp"
#include "gpgpu/error.hpp"
#include "tf_common.hpp"
#include "tf_kernels.hpp"

namespace gpgpu::nn::detail {

std::string glsl_float(double value);
std::string glsl_int(std::size_t value, const char* what);

TfArray::TfArray(const Context& context, std::size_t count)
    : buffer(context, ElementType::Float32, count),
      texture(Texture::array(context, TexelType::Float, count)) {}

TransformFeedbackKernel make_tf_kernel(const Context& context, const char* body, Defines defines,
                                       std::string label) {
  return TransformFeedbackKernel(context,
                                 std::string(activation_glsl) + hash_glsl + augmentation_glsl + tf::prelude + body,
                                 defines, std::move(label));
}

std::size_t TfStageContext::parameter_index(std::size_t offset) const {
  return parameter_at.at(offset);
}

namespace {

Args with_input(Args args, const Stage& stage, const TfArray& x) {
  if (stage.input_act != Act::None) args.emplace_back("xin", x.buffer);
  return args;
}

Defines sizes(Defines d, std::initializer_list<std::pair<const char*, std::size_t>> values) {
  for (auto [name, value] : values) d.emplace_back(name, glsl_int(value, name));
  return d;
}

// Dense and Conv2D: forward, weight and bias gradients, input gradient.
class TfLinearRunner final : public TfRunner {
 public:
  TfLinearRunner(const TfStageContext& sc, const Stage& stage, TfStageArrays a)
      : sc_(sc), stage_(stage), a_(a) {
    const bool conv = stage.kind == Stage::Kind::Conv;
    Defines d = activation_defines(stage.act, stage.input_act);
    if (conv) {
      const auto& c = std::get<Conv2D>(stage.spec);
      d = sizes(d, {{"BATCH", sc.batch},
                    {"CI", stage.in[0]},
                    {"IH", stage.in[1]},
                    {"IW", stage.in[2]},
                    {"CO", stage.out[0]},
                    {"OH", stage.out[1]},
                    {"OW", stage.out[2]},
                    {"KS", c.kernel},
                    {"STRIDE", c.stride},
                    {"PAD", c.padding}});
    } else {
      d = sizes(d, {{"BATCH", sc.batch}, {"NIN", stage.in[0]}, {"NOUT", stage.out[0]}});
    }
    d = sizes(d, {{"W_OFF", stage.offsets[0]}, {"B_OFF", stage.offsets[1]}});
    const auto label = fmt::format("nn tf {} (layer {})", layer_type(stage.spec), stage.layer);
    forward_.emplace(
        make_tf_kernel(sc.context, conv ? tf::conv_forward : tf::dense_forward, d, label));
    if (a.dy != nullptr) {
      const char* weights = conv ? tf::conv_weight_gradient : tf::dense_weight_gradient;
      weight_grad_.emplace(make_tf_kernel(sc.context, weights, d, label + " weight gradient"));
      Defines bias = d;
      bias.emplace_back("BIAS", "");
      bias_grad_.emplace(make_tf_kernel(sc.context, weights, bias, label + " bias gradient"));
    }
    if (a.dx != nullptr) {
      input_grad_.emplace(make_tf_kernel(sc.context,
                                         conv ? tf::conv_input_gradient : tf::dense_input_gradient,
                                         d, label + " input gradient"));
    }
  }
  void forward(std::uint32_t) override {
    forward_->run({{"x", a_.x->texture}, {"params", sc_.params}, {"y", a_.y->buffer}});
  }
  void backward() override {
    weight_grad_->run({{"dy", a_.dy->texture},
                       {"x", a_.x->texture},
                       {"g", sc_.gradients[sc_.parameter_index(stage_.offsets[0])]}});
    bias_grad_->run(
        {{"dy", a_.dy->texture}, {"g", sc_.gradients[sc_.parameter_index(stage_.offsets[1])]}});
    if (input_grad_) {
      input_grad_->run(with_input(
          {{"dy", a_.dy->texture}, {"params", sc_.params}, {"dx", a_.dx->buffer}}, stage_, *a_.x));
    }
  }

 private:
  TfStageContext sc_;
  const Stage& stage_;
  TfStageArrays a_;
  std::optional<TransformFeedbackKernel> forward_, weight_grad_, bias_grad_, input_grad_;
};

class TfPoolRunner final : public TfRunner {
 public:
  TfPoolRunner(const TfStageContext& sc, const Stage& stage, TfStageArrays a)
      : sc_(sc), stage_(stage), a_(a), max_(stage.kind == Stage::Kind::MaxPool) {
    std::size_t size = 0, stride = 0;
    if (max_) {
      const auto& p = std::get<MaxPool2D>(stage.spec);
      size = p.size;
      stride = p.stride == 0 ? p.size : p.stride;
    } else {
      const auto& p = std::get<AvgPool2D>(stage.spec);
      size = p.size;
      stride = p.stride == 0 ? p.size : p.stride;
    }
    Defines d = sizes(activation_defines(Act::None, stage.input_act), {{"IH", stage.in[1]},
                                                                       {"IW", stage.in[2]},
                                                                       {"OH", stage.out[1]},
                                                                       {"OW", stage.out[2]},
                                                                       {"SIZE", size},
                                                                       {"STRIDE", stride}});
    if (max_) d.emplace_back("MAX_POOL", "");
    const bool train = a.dy != nullptr;
    if (train) d.emplace_back("TRAIN", "");
    const auto label = fmt::format("nn tf {} (layer {})", layer_type(stage.spec), stage.layer);
    forward_.emplace(make_tf_kernel(sc.context, tf::pool_forward, d, label));
    if (train && max_) argmax_ = TfArray(sc.context, sc.batch * stage.out.size());
    if (a.dx != nullptr)
      backward_.emplace(make_tf_kernel(sc.context, tf::pool_backward, d, label + " backward"));
  }
  void forward(std::uint32_t) override {
    Args args{{"x", a_.x->texture}, {"y", a_.y->buffer}};
    if (argmax_.valid()) args.emplace_back("arg", argmax_.buffer);
    forward_->run(args);
    if (argmax_.valid()) sc_.copier.to_texture(argmax_);
  }
  void backward() override {
    if (!backward_) return;
    Args args = with_input({{"dy", a_.dy->texture}, {"dx", a_.dx->buffer}}, stage_, *a_.x);
    if (max_) args.emplace_back("arg", argmax_.texture);
    backward_->run(args);
  }

 private:
  TfStageContext sc_;
  const Stage& stage_;
  TfStageArrays a_;
  bool max_;
  std::optional<TransformFeedbackKernel> forward_, backward_;
  TfArray argmax_;
};

// Activations (standalone), dropout and softmax.
class TfElementwiseRunner final : public TfRunner {
 public:
  TfElementwiseRunner(const TfStageContext& sc, const Stage& stage, TfStageArrays a)
      : sc_(sc), stage_(stage), a_(a) {
    const auto label = fmt::format("nn tf {} (layer {})", layer_type(stage.spec), stage.layer);
    Defines in_act = activation_defines(Act::None, stage.input_act);
    if (stage.kind == Stage::Kind::Activation) {
      forward_.emplace(make_tf_kernel(sc.context, tf::activation_forward,
                                      activation_defines(stage.act, Act::None), label));
      if (a.dx)
        backward_.emplace(
            make_tf_kernel(sc.context, tf::pass_backward, in_act, label + " backward"));
    } else if (stage.kind == Stage::Kind::Dropout) {
      const float rate = std::get<Dropout>(stage.spec).rate;
      in_act.emplace_back("RATE", glsl_float(rate));
      in_act.emplace_back("SCALE", glsl_float(1.0 / (1.0 - static_cast<double>(rate))));
      forward_.emplace(make_tf_kernel(sc.context, tf::dropout_forward, in_act, label));
      if (a.dx)
        backward_.emplace(
            make_tf_kernel(sc.context, tf::dropout_backward, in_act, label + " backward"));
    } else {
      in_act.emplace_back("F", glsl_int(stage.out[0], "features"));
      forward_.emplace(make_tf_kernel(sc.context, tf::softmax_forward, in_act, label));
      if (a.dx)
        backward_.emplace(
            make_tf_kernel(sc.context, tf::softmax_backward, in_act, label + " backward"));
    }
  }
  void forward(std::uint32_t seed) override {
    if (stage_.kind == Stage::Kind::Softmax) {
      forward_->run({{"x", a_.x->texture}, {"y", a_.y->buffer}});
      return;
    }
    Args args{{"x", a_.x->buffer}, {"y", a_.y->buffer}};
    if (stage_.kind == Stage::Kind::Dropout) {
      seed_ = pcg_hash(seed) ^ static_cast<std::uint32_t>(stage_.layer * 0x9E3779B9u);
      args.emplace_back("seed", seed_);
    }
    forward_->run(args);
  }
  void backward() override {
    if (!backward_) return;
    if (stage_.kind == Stage::Kind::Softmax) {
      backward_->run(with_input(
          {{"y", a_.y->texture}, {"dy", a_.dy->texture}, {"dx", a_.dx->buffer}}, stage_, *a_.x));
      return;
    }
    Args args = with_input({{"dy", a_.dy->buffer}, {"dx", a_.dx->buffer}}, stage_, *a_.x);
    if (stage_.kind == Stage::Kind::Dropout) args.emplace_back("seed", seed_);
    backward_->run(args);
  }

 private:
  TfStageContext sc_;
  const Stage& stage_;
  TfStageArrays a_;
  std::uint32_t seed_ = 0;
  std::optional<TransformFeedbackKernel> forward_, backward_;
};

class TfBatchNormRunner final : public TfRunner {
 public:
  TfBatchNormRunner(const TfStageContext& sc, const Stage& stage, TfStageArrays a)
      : sc_(sc), stage_(stage), a_(a), channels_(stage.in[0]), train_(sc.mode == Mode::Train) {
    const auto& bn = std::get<BatchNorm>(stage.spec);
    Defines d =
        sizes(activation_defines(stage.act, stage.input_act), {{"BATCH", sc.batch},
                                                               {"C", channels_},
                                                               {"HW", stage.in.size() / channels_},
                                                               {"GAMMA_OFF", stage.offsets[0]},
                                                               {"BETA_OFF", stage.offsets[1]},
                                                               {"MEAN_OFF", stage.offsets[2]},
                                                               {"VAR_OFF", stage.offsets[3]}});
    d.emplace_back("EPS", glsl_float(bn.epsilon));
    d.emplace_back("MOMENTUM", glsl_float(bn.momentum));
    if (train_) d.emplace_back("TRAIN", "");
    const auto label = fmt::format("nn tf batchnorm (layer {})", stage.layer);
    normalize_.emplace(make_tf_kernel(sc.context, tf::batchnorm_normalize, d, label));
    if (train_) {
      stats_kernel_.emplace(
          make_tf_kernel(sc.context, tf::batchnorm_stats, d, label + " statistics"));
      for (auto* b : {&mean_, &inv_std_, &running_mean_, &running_var_}) {
        *b = Buffer(sc.context, ElementType::Float32, channels_);
      }
      stats_ = Texture::array(sc.context, TexelType::Float, 2 * channels_);
    }
    if (a.dy) {
      sums_kernel_.emplace(
          make_tf_kernel(sc.context, tf::batchnorm_sums, d, label + " gradient sums"));
      sums_ = Texture::array(sc.context, TexelType::Float, 2 * channels_);
    }
    if (a.dx)
      input_.emplace(
          make_tf_kernel(sc.context, tf::batchnorm_input_gradient, d, label + " input gradient"));
  }
  void forward(std::uint32_t) override {
    Args args{{"x", a_.x->buffer}, {"params", sc_.params}, {"y", a_.y->buffer}};
    if (train_) {
      stats_kernel_->run({{"x", a_.x->texture},
                          {"params", sc_.params},
                          {"mean", mean_},
                          {"inv_std", inv_std_},
                          {"running_mean", running_mean_},
                          {"running_var", running_var_}});
      sc_.copier.to_texture(mean_, stats_, 0);
      sc_.copier.to_texture(inv_std_, stats_, channels_);
      sc_.copier.to_texture(running_mean_, sc_.params, stage_.offsets[2]);
      sc_.copier.to_texture(running_var_, sc_.params, stage_.offsets[3]);
      args.emplace_back("stats", stats_);
    }
    normalize_->run(args);
  }
  void backward() override {
    Buffer& gamma = sc_.gradients[sc_.parameter_index(stage_.offsets[0])];
    Buffer& beta = sc_.gradients[sc_.parameter_index(stage_.offsets[1])];
    sums_kernel_->run({{"x", a_.x->texture},
                       {"dy", a_.dy->texture},
                       {"stats", stats_},
                       {"sum_dy", beta},
                       {"sum_dy_xhat", gamma}});
    sc_.copier.to_texture(beta, sums_, 0);
    sc_.copier.to_texture(gamma, sums_, channels_);
    if (input_) {
      input_->run({{"x", a_.x->buffer},
                   {"dy", a_.dy->buffer},
                   {"params", sc_.params},
                   {"stats", stats_},
                   {"sums", sums_},
                   {"dx", a_.dx->buffer}});
    }
  }

 private:
  TfStageContext sc_;
  const Stage& stage_;
  TfStageArrays a_;
  std::size_t channels_;
  bool train_;
  std::optional<TransformFeedbackKernel> stats_kernel_, normalize_, sums_kernel_, input_;
  Buffer mean_, inv_std_, running_mean_, running_var_;
  Texture stats_, sums_;
};

}  // namespace

std::unique_ptr<TfRunner> make_tf_runner(const TfStageContext& sc, const Stage& stage,
                                         TfStageArrays arrays) {
  switch (stage.kind) {
    case Stage::Kind::Dense:
    case Stage::Kind::Conv:
      return std::make_unique<TfLinearRunner>(sc, stage, arrays);
    case Stage::Kind::MaxPool:
    case Stage::Kind::AvgPool:
      return std::make_unique<TfPoolRunner>(sc, stage, arrays);
    case Stage::Kind::Activation:
    case Stage::Kind::Dropout:
    case Stage::Kind::Softmax:
      return std::make_unique<TfElementwiseRunner>(sc, stage, arrays);
    case Stage::Kind::BatchNorm:
      return std::make_unique<TfBatchNormRunner>(sc, stage, arrays);
    case Stage::Kind::Alias:
      return nullptr;
  }
  return nullptr;
}

}  // namespace gpgpu::nn::detail
