// The compute backend: parameters, gradients and optimizer state in flat device buffers; a
// plan per batch size with its activation and gradient buffers and its stage runners, all
// made once; gathering, loss and update kernels.
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "glsl_common.hpp"
#include "gpgpu/error.hpp"
#include "kernels.hpp"
#include "model_state.hpp"
#include "runners.hpp"
#include "stage_timer.hpp"

namespace gpgpu::nn::detail {

namespace {

class ComputeFeed final : public DataFeed {
 public:
  ComputeFeed(const Context& context, const DeviceDataset& data)
      : data_(data), order_(context, ElementType::Uint32, data.count()) {}
  void set_order(std::span<const std::uint32_t> order) override {
    if (order.size() != data_.count()) {
      throw SizeMismatchError(
          fmt::format("data order of {} for {} samples", order.size(), data_.count()));
    }
    order_.upload(order);
  }
  std::size_t count() const override { return data_.count(); }
  const DeviceDataset& data() const { return data_; }
  const Buffer& order() const { return order_; }

 private:
  const DeviceDataset& data_;
  Buffer order_;
};

class ComputeEngine;

class ComputePlan final : public Plan {
 public:
  ComputePlan(ComputeEngine& engine, const PlanKey& key);
  std::size_t batch() const override { return key_.batch; }
  void load_input(const Buffer& x) override;
  void gather(DataFeed& feed, std::size_t first, std::size_t valid,
              const Augmentation& augmentation, std::uint32_t seed) override;
  void forward(std::uint32_t seed) override {
    for (std::size_t i = 0; i < runners_.size(); ++i) {
      if (runners_[i]) timer_.time(names_[i] + " forward", [&] { runners_[i]->forward(seed); });
    }
  }
  const Buffer& output() const override { return acts_[output_slot_]; }
  void loss(std::size_t valid, bool gradient, Buffer* predictions, std::size_t offset) override;
  void load_output_gradient(const Buffer& dy) override;
  void backward() override {
    if (key_.mode != Mode::Train) throw Error("nn: backward() needs a plan made in Train mode");
    for (std::size_t i = runners_.size(); i-- > 0;) {
      if (runners_[i]) timer_.time(names_[i] + " backward", [&] { runners_[i]->backward(); });
    }
  }
  const Buffer& input_gradient() const override {
    if (!key_.input_gradient) throw Error("nn: this plan computes no input gradient");
    return grads_[0];
  }

 private:
  std::size_t slot_size(std::size_t slot) const;

  ComputeEngine& engine_;
  PlanKey key_;
  std::vector<Stage> stages_;
  std::vector<Buffer> acts_, grads_;
  Buffer labels_;
  std::vector<std::unique_ptr<ComputeRunner>> runners_;
  std::vector<std::string> names_;
  StageTimer timer_;
  std::size_t output_slot_ = 0;
  Act output_act_ = Act::None;
  std::optional<ComputeKernel> gather_, copy_, scale_output_;
  std::map<std::pair<bool, bool>, ComputeKernel> loss_kernels_;
  Augmentation gather_augmentation_;
};

class ComputeEngine final : public Engine {
 public:
  explicit ComputeEngine(const ModelState& model)
      : model_(model),
        params_(*model.context, ElementType::Float32, std::max<std::size_t>(model.total, 1)),
        grads_(*model.context, ElementType::Float32, std::max<std::size_t>(model.trainable, 1)),
        acc_(*model.context, ElementType::Float32, 2) {
    upload_zeros(grads_);
    reset_accumulators();
  }

  const ModelState& model() const { return model_; }
  const Context& context() const { return *model_.context; }
  Buffer& params() { return params_; }
  Buffer& grads() { return grads_; }
  Buffer& accumulators() { return acc_; }

  void upload_parameters(std::span<const float> values) override {
    if (!values.empty()) params_.upload(values);
  }
  std::vector<float> download_parameters() override {
    auto v = params_.to_vector<float>();
    v.resize(model_.total);
    return v;
  }
  std::vector<float> download_gradients() override {
    auto g = grads_.to_vector<float>();
    g.resize(model_.total, 0.0f);
    if (model_.trainable == 0) std::fill(g.begin(), g.end(), 0.0f);
    return g;
  }
  std::unique_ptr<Plan> make_plan(const PlanKey& key) override {
    return std::make_unique<ComputePlan>(*this, key);
  }
  std::unique_ptr<DataFeed> make_feed(const DeviceDataset& data) override {
    return std::make_unique<ComputeFeed>(context(), data);
  }
  void reset_optimizer(const Optimizer& optimizer) override;
  void update(const Optimizer& optimizer, float learning_rate, std::size_t step) override;
  void reset_accumulators() override {
    const float zeros[2] = {0.0f, 0.0f};
    acc_.upload(std::span<const float>(zeros, 2));
  }
  std::pair<double, double> read_accumulators() override {
    float values[2];
    acc_.download(std::span<float>(values, 2));
    return {values[0], values[1]};
  }

 private:
  void upload_zeros(Buffer& b) { b.upload(std::vector<float>(b.size(), 0.0f)); }

  const ModelState& model_;
  Buffer params_, grads_, acc_, first_moment_, second_moment_;
  std::optional<ComputeKernel> update_;
};

void ComputeEngine::reset_optimizer(const Optimizer& optimizer) {
  const std::size_t n = std::max<std::size_t>(model_.trainable, 1);
  Defines d;
  if (const auto* sgd = std::get_if<SGD>(&optimizer)) {
    if (sgd->momentum != 0.0f) {
      d.emplace_back("MOMENTUM", "");
      first_moment_ = Buffer(context(), ElementType::Float32, n);
      upload_zeros(first_moment_);
    }
    update_.emplace(context(), kernels::sgd, d, "nn sgd update");
  } else {
    first_moment_ = Buffer(context(), ElementType::Float32, n);
    second_moment_ = Buffer(context(), ElementType::Float32, n);
    upload_zeros(first_moment_);
    upload_zeros(second_moment_);
    update_.emplace(context(), kernels::adam, d, "nn adam update");
  }
}

void ComputeEngine::update(const Optimizer& optimizer, float learning_rate, std::size_t step) {
  if (model_.trainable == 0) return;
  if (!update_) reset_optimizer(optimizer);
  if (const auto* sgd = std::get_if<SGD>(&optimizer)) {
    Args args{
        {"p", params_}, {"g", grads_}, {"lr", learning_rate}, {"weight_decay", sgd->weight_decay}};
    if (sgd->momentum != 0.0f) {
      args.emplace_back("v", first_moment_);
      args.emplace_back("momentum", sgd->momentum);
    }
    update_->run(args, model_.trainable);
    return;
  }
  const auto& adam = std::get<Adam>(optimizer);
  const double t = static_cast<double>(step);
  const auto c1 = static_cast<float>(1.0 / (1.0 - std::pow(static_cast<double>(adam.beta1), t)));
  const auto c2 = static_cast<float>(1.0 / (1.0 - std::pow(static_cast<double>(adam.beta2), t)));
  update_->run({{"p", params_},
                {"g", grads_},
                {"m", first_moment_},
                {"v", second_moment_},
                {"lr", learning_rate},
                {"weight_decay", adam.weight_decay},
                {"beta1", adam.beta1},
                {"beta2", adam.beta2},
                {"epsilon", adam.epsilon},
                {"correction1", c1},
                {"correction2", c2}},
               model_.trainable);
}

ComputePlan::ComputePlan(ComputeEngine& engine, const PlanKey& key)
    : engine_(engine),
      key_(key),
      stages_(build_stages(engine.model(), key.mode, key.fuse_loss)),
      timer_(engine.context(), fmt::format("compute plan, batch {}, {}", key.batch,
                                           key.mode == Mode::Train ? "training" : "evaluation")) {
  const Context& ctx = engine.context();
  if (key.batch == 0) throw ArgumentError("nn: the batch size must be positive");
  const std::size_t slots = slot_count(stages_);
  for (const auto& s : stages_) {
    if (s.kind == Stage::Kind::Alias) continue;
    output_slot_ = s.slot;
    output_act_ = s.act;
  }
  // A model of only flatten (or evaluation-time dropout) layers is the identity: its output
  // is its input, slot 0.
  const bool train = key.mode == Mode::Train;
  for (std::size_t s = 0; s < slots; ++s) {
    acts_.emplace_back(ctx, ElementType::Float32, key.batch * slot_size(s));
    grads_.emplace_back();
    if (train && (s > 0 || key.input_gradient || s == output_slot_)) {
      grads_[s] = Buffer(ctx, ElementType::Float32, key.batch * slot_size(s));
    }
  }
  labels_ = Buffer(ctx, ElementType::Uint32, key.batch);
  ComputeStageContext sc{ctx,      engine.model().options, key.batch,
                         key.mode, engine.params(),        engine.grads()};
  for (const auto& s : stages_) {
    StageBuffers b;
    b.x = &acts_[s.input_slot];
    b.y = &acts_[s.slot];
    if (train) {
      b.dy = &grads_[s.slot];
      if (grads_[s.input_slot].valid()) b.dx = &grads_[s.input_slot];
    }
    runners_.push_back(make_compute_runner(sc, s, b));
    names_.push_back(fmt::format("layer {:2} {}{}", s.layer, layer_type(s.spec),
                                 s.act != Act::None ? " + activation" : ""));
  }
}

std::size_t ComputePlan::slot_size(std::size_t slot) const {
  if (slot == 0) return engine_.model().input.size();
  for (const auto& s : stages_) {
    if (s.slot == slot) return s.out.size();
  }
  return 0;
}

void ComputePlan::load_input(const Buffer& x) {
  if (x.size() != acts_[0].size()) {
    throw SizeMismatchError(
        fmt::format("nn: input of {} values for a plan of {}", x.size(), acts_[0].size()));
  }
  if (!copy_) copy_.emplace(make_nn_kernel(engine_.context(), kernels::copy, {}, "nn copy"));
  copy_->run({{"src", x}, {"dst", acts_[0]}}, x.size());
}

void ComputePlan::gather(DataFeed& feed, std::size_t first, std::size_t valid,
                         const Augmentation& augmentation, std::uint32_t seed) {
  auto& f = dynamic_cast<ComputeFeed&>(feed);
  const Shape& in = engine_.model().input;
  if (in.rank() != 3 || f.data().sample_shape() != in) {
    throw ArgumentError(fmt::format("nn: the data's samples are {} but the model takes {}",
                                    f.data().sample_shape().to_string(), in.to_string()));
  }
  if (valid == 0 || first + valid > f.count()) {
    throw ArgumentError(fmt::format("nn: batch [{}, {}) outside the data's {} samples", first,
                                    first + valid, f.count()));
  }
  if (!gather_ || gather_augmentation_.flip != augmentation.flip ||
      gather_augmentation_.shift != augmentation.shift) {
    gather_.emplace(make_nn_kernel(engine_.context(), kernels::gather,
                                   {{"C", std::to_string(in[0])},
                                    {"H", std::to_string(in[1])},
                                    {"W", std::to_string(in[2])},
                                    {"FLIP", augmentation.flip ? "1" : "0"},
                                    {"SHIFT", std::to_string(std::max(0, augmentation.shift))}},
                                   "nn gather batch"));
    gather_augmentation_ = augmentation;
  }
  const auto norm = engine_.model().normalization;
  Args args{{"pixels", f.data().pixels()},
            {"order", f.order()},
            {"x", acts_[0]},
            {"batch_labels", labels_},
            {"labels", f.data().label_buffer()},
            {"first", static_cast<std::uint32_t>(first)},
            {"valid", static_cast<std::uint32_t>(valid)},
            {"mean", norm.mean},
            {"inv_std", 1.0f / norm.stddev}};
  if (augmentation.enabled()) args.emplace_back("seed", seed);
  timer_.time("gather batch", [&] { gather_->run(args, acts_[0].size()); });
}

void ComputePlan::loss(std::size_t valid, bool gradient, Buffer* predictions, std::size_t offset) {
  const Shape& out = stages_.empty() ? engine_.model().input : stages_.back().out;
  if (out.rank() != 1) {
    throw ArgumentError(
        fmt::format("nn: the loss needs (batch, classes) outputs; the model gives {}",
                    out.with_batch(key_.batch).to_string()));
  }
  if (gradient && key_.mode != Mode::Train) throw Error("nn: loss gradients need a Train plan");
  const auto kernel_key = std::make_pair(gradient, predictions != nullptr);
  auto it = loss_kernels_.find(kernel_key);
  if (it == loss_kernels_.end()) {
    Defines d = activation_defines(output_act_, Act::None);
    d.emplace_back("BATCH", std::to_string(key_.batch));
    d.emplace_back("CLASSES", std::to_string(out[0]));
    if (gradient) d.emplace_back("GRADIENT", "");
    if (predictions) d.emplace_back("PREDICT", "");
    it = loss_kernels_
             .emplace(kernel_key, make_nn_kernel(engine_.context(), kernels::loss, d,
                                                 "nn softmax cross-entropy"))
             .first;
  }
  Args args{{"z", acts_[output_slot_]},
            {"labels", labels_},
            {"acc", engine_.accumulators()},
            {"valid", static_cast<std::uint32_t>(valid)}};
  if (gradient) args.emplace_back("dz", grads_[output_slot_]);
  if (predictions) {
    args.emplace_back("pred", *predictions);
    args.emplace_back("pred_offset", static_cast<std::uint32_t>(offset));
  }
  timer_.time("softmax cross-entropy", [&] { it->second.run_groups(args, Size3{1, 1, 1}); });
}

void ComputePlan::load_output_gradient(const Buffer& dy) {
  if (key_.mode != Mode::Train) throw Error("nn: output gradients need a Train plan");
  Buffer& target = grads_[output_slot_];
  if (dy.size() != target.size()) {
    throw SizeMismatchError(fmt::format("nn: output gradient of {} values for outputs of {}",
                                        dy.size(), target.size()));
  }
  if (!scale_output_) {
    scale_output_.emplace(make_nn_kernel(engine_.context(), kernels::copy,
                                         activation_defines(output_act_, Act::None),
                                         "nn output gradient"));
  }
  Args args{{"src", dy}, {"dst", target}};
  if (output_act_ != Act::None) args.emplace_back("y", acts_[output_slot_]);
  scale_output_->run(args, dy.size());
}

}  // namespace

std::unique_ptr<Engine> make_compute_engine(const ModelState& model) {
  return std::make_unique<ComputeEngine>(model);
}

}  // namespace gpgpu::nn::detail
