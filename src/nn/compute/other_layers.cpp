// The compute backend's stages besides Dense and Conv2D: pooling, activations, dropout,
// softmax and batch normalisation (kernels in kernels.hpp).
#include <optional>

#include <fmt/format.h>

#include "glsl_common.hpp"
#include "gpgpu/error.hpp"
#include "kernels.hpp"
#include "runners.hpp"

namespace gpgpu::nn::detail {

std::unique_ptr<ComputeRunner> make_gemm_runner(const ComputeStageContext& sc, const Stage& stage,
                                                StageBuffers buffers);

ComputeKernel make_nn_kernel(const Context& context, const char* body, Defines defines,
                             std::string label) {
  return ComputeKernel(context, std::string(activation_glsl) + hash_glsl + augmentation_glsl + body, defines,
                       std::move(label));
}

std::string glsl_float(double value) {
  std::string text = fmt::format("{:.9g}", value);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

std::string glsl_int(std::size_t value, const char* what) {
  if (value > 0x7FFFFFFFull) {
    throw LimitError(
        fmt::format("nn: {} = {} exceeds the 2^31 - 1 that GLSL int indices reach; "
                    "use a smaller batch",
                    what, value));
  }
  return std::to_string(value);
}

namespace {

std::size_t batch_size(const ComputeStageContext& sc, const Shape& per_sample) {
  return sc.batch * per_sample.size();
}

Args with_input(Args args, const Stage& stage, const Buffer& x) {
  if (stage.input_act != Act::None) args.emplace_back("xin", x);
  return args;
}

class PoolRunner final : public ComputeRunner {
 public:
  PoolRunner(const ComputeStageContext& sc, const Stage& stage, StageBuffers b)
      : sc_(sc), stage_(stage), b_(b), max_(stage.kind == Stage::Kind::MaxPool) {
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
    Defines d = activation_defines(Act::None, stage.input_act);
    for (auto [name, value] : {std::pair{"IH", stage.in[1]},
                               {"IW", stage.in[2]},
                               {"OH", stage.out[1]},
                               {"OW", stage.out[2]},
                               {"SIZE", size},
                               {"STRIDE", stride}}) {
      d.emplace_back(name, glsl_int(value, name));
    }
    if (max_) d.emplace_back("MAX_POOL", "");
    const bool train = b.dy != nullptr;
    if (train) d.emplace_back("TRAIN", "");
    const std::string label = fmt::format("nn {} (layer {})", layer_type(stage.spec), stage.layer);
    forward_.emplace(make_nn_kernel(sc.context, kernels::pool_forward, d, label + " forward"));
    if (train && max_) {
      argmax_ = Buffer(sc.context, ElementType::Int32, batch_size(sc, stage.out));
    }
    if (b.dx != nullptr) {
      backward_.emplace(make_nn_kernel(sc.context, kernels::pool_backward, d, label + " backward"));
    }
  }

  void forward(std::uint32_t) override {
    Args args{{"x", *b_.x}, {"y", *b_.y}};
    if (argmax_.valid()) args.emplace_back("arg", argmax_);
    forward_->run(args, batch_size(sc_, stage_.out));
  }

  void backward() override {
    if (!backward_) return;
    Args args = with_input({{"dy", *b_.dy}, {"dx", *b_.dx}}, stage_, *b_.x);
    if (max_) args.emplace_back("arg", argmax_);
    backward_->run(args, batch_size(sc_, stage_.in));
  }

 private:
  ComputeStageContext sc_;
  const Stage& stage_;
  StageBuffers b_;
  bool max_;
  std::optional<ComputeKernel> forward_, backward_;
  Buffer argmax_;
};

// ReLU, Sigmoid or Tanh on its own (when no Dense, Conv2D or BatchNorm precedes it).
class ActivationRunner final : public ComputeRunner {
 public:
  ActivationRunner(const ComputeStageContext& sc, const Stage& stage, StageBuffers b)
      : sc_(sc), stage_(stage), b_(b) {
    const auto label = fmt::format("nn {} (layer {})", layer_type(stage.spec), stage.layer);
    forward_.emplace(make_nn_kernel(sc.context, kernels::activation_forward,
                                    activation_defines(stage.act, Act::None), label));
    if (b.dx != nullptr) {
      backward_.emplace(make_nn_kernel(sc.context, kernels::pass_backward,
                                       activation_defines(Act::None, stage.input_act),
                                       label + " backward"));
    }
  }
  void forward(std::uint32_t) override {
    forward_->run({{"x", *b_.x}, {"y", *b_.y}}, batch_size(sc_, stage_.out));
  }
  void backward() override {
    if (backward_) {
      backward_->run(with_input({{"dy", *b_.dy}, {"dx", *b_.dx}}, stage_, *b_.x),
                     batch_size(sc_, stage_.in));
    }
  }

 private:
  ComputeStageContext sc_;
  const Stage& stage_;
  StageBuffers b_;
  std::optional<ComputeKernel> forward_, backward_;
};

class DropoutRunner final : public ComputeRunner {
 public:
  DropoutRunner(const ComputeStageContext& sc, const Stage& stage, StageBuffers b)
      : sc_(sc), stage_(stage), b_(b) {
    const float rate = std::get<Dropout>(stage.spec).rate;
    Defines d = activation_defines(Act::None, stage.input_act);
    d.emplace_back("RATE", glsl_float(rate));
    d.emplace_back("SCALE", glsl_float(1.0 / (1.0 - static_cast<double>(rate))));
    const auto label = fmt::format("nn dropout (layer {})", stage.layer);
    forward_.emplace(make_nn_kernel(sc.context, kernels::dropout_forward, d, label));
    if (b.dx != nullptr) {
      backward_.emplace(
          make_nn_kernel(sc.context, kernels::dropout_backward, d, label + " backward"));
    }
  }
  void forward(std::uint32_t seed) override {
    seed_ = pcg_hash(seed) ^ static_cast<std::uint32_t>(stage_.layer * 0x9E3779B9u);
    forward_->run({{"x", *b_.x}, {"y", *b_.y}, {"seed", seed_}}, batch_size(sc_, stage_.out));
  }
  void backward() override {
    if (backward_) {
      backward_->run(with_input({{"dy", *b_.dy}, {"dx", *b_.dx}, {"seed", seed_}}, stage_, *b_.x),
                     batch_size(sc_, stage_.in));
    }
  }

 private:
  ComputeStageContext sc_;
  const Stage& stage_;
  StageBuffers b_;
  std::uint32_t seed_ = 0;
  std::optional<ComputeKernel> forward_, backward_;
};

class SoftmaxRunner final : public ComputeRunner {
 public:
  SoftmaxRunner(const ComputeStageContext& sc, const Stage& stage, StageBuffers b)
      : sc_(sc), stage_(stage), b_(b) {
    Defines d = activation_defines(Act::None, stage.input_act);
    d.emplace_back("F", glsl_int(stage.out[0], "features"));
    const auto label = fmt::format("nn softmax (layer {})", stage.layer);
    forward_.emplace(make_nn_kernel(sc.context, kernels::softmax_forward, d, label));
    if (b.dx != nullptr) {
      backward_.emplace(
          make_nn_kernel(sc.context, kernels::softmax_backward, d, label + " backward"));
    }
  }
  void forward(std::uint32_t) override { forward_->run({{"x", *b_.x}, {"y", *b_.y}}, sc_.batch); }
  void backward() override {
    if (backward_) {
      backward_->run(with_input({{"y", *b_.y}, {"dy", *b_.dy}, {"dx", *b_.dx}}, stage_, *b_.x),
                     sc_.batch);
    }
  }

 private:
  ComputeStageContext sc_;
  const Stage& stage_;
  StageBuffers b_;
  std::optional<ComputeKernel> forward_, backward_;
};

class BatchNormRunner final : public ComputeRunner {
 public:
  BatchNormRunner(const ComputeStageContext& sc, const Stage& stage, StageBuffers b)
      : sc_(sc), stage_(stage), b_(b), channels_(stage.in[0]), train_(sc.mode == Mode::Train) {
    const auto& bn = std::get<BatchNorm>(stage.spec);
    Defines d = activation_defines(stage.act, stage.input_act);
    const std::size_t hw = stage.in.size() / channels_;
    for (auto [name, value] : {std::pair{"BATCH", sc.batch},
                               {"C", channels_},
                               {"HW", hw},
                               {"GAMMA_OFF", stage.offsets[0]},
                               {"BETA_OFF", stage.offsets[1]},
                               {"MEAN_OFF", stage.offsets[2]},
                               {"VAR_OFF", stage.offsets[3]}}) {
      d.emplace_back(name, glsl_int(value, name));
    }
    d.emplace_back("EPS", glsl_float(bn.epsilon));
    d.emplace_back("MOMENTUM", glsl_float(bn.momentum));
    if (train_) d.emplace_back("TRAIN", "");
    const auto label = fmt::format("nn batchnorm (layer {})", stage.layer);
    const std::string reduce = kernels::channel_reduce_prelude;
    normalize_.emplace(make_nn_kernel(sc.context, kernels::batchnorm_normalize, d, label));
    if (train_) {
      stats_.emplace(make_nn_kernel(sc.context, (reduce + kernels::batchnorm_stats).c_str(), d,
                                    label + " statistics"));
      stats_buffer_ = Buffer(sc.context, ElementType::Float32, 2 * channels_);
    }
    if (b.dy != nullptr) {
      sums_.emplace(make_nn_kernel(sc.context, (reduce + kernels::batchnorm_backward_sums).c_str(),
                                   d, label + " gradient sums"));
      sums_buffer_ = Buffer(sc.context, ElementType::Float32, 2 * channels_);
    }
    if (b.dx != nullptr) {
      input_.emplace(make_nn_kernel(sc.context, kernels::batchnorm_backward_input, d,
                                    label + " input gradient"));
    }
  }

  void forward(std::uint32_t) override {
    Args args{{"x", *b_.x}, {"p", sc_.params}, {"y", *b_.y}};
    if (train_) {
      stats_->run_groups({{"x", *b_.x}, {"p", sc_.params}, {"stats", stats_buffer_}},
                         Size3{channels_, 1, 1});
      args.emplace_back("stats", stats_buffer_);
    }
    normalize_->run(args, batch_size(sc_, stage_.out));
  }

  void backward() override {
    sums_->run_groups({{"x", *b_.x},
                       {"dy", *b_.dy},
                       {"stats", stats_buffer_},
                       {"g", sc_.gradients},
                       {"sums", sums_buffer_}},
                      Size3{channels_, 1, 1});
    if (input_) {
      input_->run({{"x", *b_.x},
                   {"dy", *b_.dy},
                   {"p", sc_.params},
                   {"stats", stats_buffer_},
                   {"sums", sums_buffer_},
                   {"dx", *b_.dx}},
                  batch_size(sc_, stage_.in));
    }
  }

 private:
  ComputeStageContext sc_;
  const Stage& stage_;
  StageBuffers b_;
  std::size_t channels_;
  bool train_;
  std::optional<ComputeKernel> stats_, normalize_, sums_, input_;
  Buffer stats_buffer_, sums_buffer_;
};

}  // namespace

std::unique_ptr<ComputeRunner> make_compute_runner(const ComputeStageContext& sc,
                                                   const Stage& stage, StageBuffers buffers) {
  switch (stage.kind) {
    case Stage::Kind::Dense:
    case Stage::Kind::Conv:
      return make_gemm_runner(sc, stage, buffers);
    case Stage::Kind::MaxPool:
    case Stage::Kind::AvgPool:
      return std::make_unique<PoolRunner>(sc, stage, buffers);
    case Stage::Kind::Activation:
      return std::make_unique<ActivationRunner>(sc, stage, buffers);
    case Stage::Kind::Dropout:
      return std::make_unique<DropoutRunner>(sc, stage, buffers);
    case Stage::Kind::Softmax:
      return std::make_unique<SoftmaxRunner>(sc, stage, buffers);
    case Stage::Kind::BatchNorm:
      return std::make_unique<BatchNormRunner>(sc, stage, buffers);
    case Stage::Kind::Alias:
      return nullptr;
  }
  return nullptr;
}

}  // namespace gpgpu::nn::detail
