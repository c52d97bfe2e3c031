// The compute backend: parameters, gradients and optimizer state in flat device buffers; a
// plan per batch size with its activation and gradient buffers and its stage kernels, all
// made once (the stages, checks and loops are plan/staged_plan.hpp's); gathering, loss and
// update kernels.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "batch_gather.hpp"
#include "compute/mapped_gradients.hpp"
#include "glsl/snippets.hpp"
#include "gpgpu/error.hpp"
#include "kernels.hpp"
#include "model_state.hpp"
#include "plan/gpu_engine.hpp"
#include "plan/optimizer_step.hpp"
#include "replayed_pass.hpp"
#include "runners.hpp"

namespace gpgpu::nn::detail {

namespace {

// The optimizer's update over the flat parameters.
KernelSource update_source(const Optimizer& optimizer) {
  if (const auto* sgd = std::get_if<SGD>(&optimizer)) {
    Defines d;
    if (sgd->momentum != 0.0f) d.emplace_back("MOMENTUM", "");
    return {kernels::sgd, d, "nn sgd update"};
  }
  return {kernels::adam, {}, "nn adam update"};
}

// The softmax cross-entropy over the plan's output: with its gradient (training) and/or the
// predictions (evaluation).
KernelSource loss_source(const StagePlan& plan, bool gradient, bool predict) {
  Defines d = activation_defines(plan.output_act, {});
  d.emplace_back("BATCH", std::to_string(plan.key.batch));
  d.emplace_back("CLASSES", std::to_string(plan.output[0]));
  if (gradient) d.emplace_back("GRADIENT", "");
  if (predict) d.emplace_back("PREDICT", "");
  return nn_kernel_source(kernels::loss, d, "nn softmax cross-entropy");
}

// The batch gather's C, H, W, FLIP and SHIFT.
Defines gather_defines(const Shape& in, const Augmentation& augmentation) {
  return {{"C", std::to_string(in[0])},
          {"H", std::to_string(in[1])},
          {"W", std::to_string(in[2])},
          {"FLIP", augmentation.flip ? "1" : "0"},
          {"SHIFT", std::to_string(std::max(0, augmentation.shift))}};
}

class ComputeFeed final : public DataFeed {
 public:
  ComputeFeed(const Context& context, const DeviceDataset& data)
      : DataFeed(data), order_(context, ElementType::Uint32, data.count()) {}
  void set_order(std::span<const std::uint32_t> order) override {
    if (order.size() != count()) {
      throw SizeMismatchError(
          fmt::format("data order of {} for {} samples", order.size(), count()));
    }
    order_.upload(order);
  }
  const Buffer& order() const { return order_; }

 private:
  Buffer order_;
};

class ComputeEngine;

class ComputePlan final : public StagedPlan {
 public:
  ComputePlan(ComputeEngine& engine, const PlanKey& key);
  void forward(std::uint32_t seed) override;
  using StagedPlan::backward;
  void backward(const std::function<void(std::size_t layer)>& layer_done) override;
  void load_input(const Buffer& x) override;
  void gather(DataFeed& feed, std::size_t first, std::size_t valid,
              const Augmentation& augmentation, std::uint32_t seed) override;
  std::vector<float> output() override { return acts_[plan().output_slot].to_vector<float>(); }
  void loss(std::size_t valid, bool gradient, bool predict, std::size_t offset) override;
  void load_output_gradient(const Buffer& dy) override;
  std::vector<float> input_gradient() override {
    check_input_gradient();
    return grads_[0].to_vector<float>();
  }
  // Whether the passes may be replayed (replayed_pass.hpp): not while GPGPU_NN_PROFILE times
  // each stage, nor with dropout, whose masks' seeds are set on the host at every pass.
  bool replay_passes() const;

 private:
  ComputeEngine& engine_;
  ReplayedPass forward_pass_, backward_pass_;
  std::vector<Buffer> acts_, grads_;
  Buffer labels_;
  std::optional<BatchGather> gather_;
  std::optional<ComputeKernel> copy_, scale_output_;
  std::map<std::pair<bool, bool>, ComputeKernel> loss_kernels_;
  Augmentation gather_augmentation_;
};

class ComputeEngine final : public GpuEngine {
 public:
  explicit ComputeEngine(const ModelState& model)
      : GpuEngine(model),
        params_(*model.context, ElementType::Float32, std::max<std::size_t>(model.total, 1)),
        grads_(*model.context, ElementType::Float32, std::max<std::size_t>(model.trainable, 1)),
        acc_(*model.context, ElementType::Float32, 2) {
    upload_zeros(grads_);
    reset_accumulators();
  }

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
    // After a step whose update read the host copy, that copy holds what the update used.
    auto g = gradients_on_host()
                 ? std::vector<float>(host_grads_->array().begin(), host_grads_->array().end())
                 : grads_.to_vector<float>();
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
  void train_step(Plan& plan, DataFeed& feed, const TrainStep& t) override;
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
  // The step's host copy of the gradients, in mapped memory (mapped_gradients.hpp).
  void begin_gradient_staging() override { host_gradients().begin(); }
  std::span<float> gradient_array() override { return host_gradients().array(); }
  std::span<float> stage_gradients(std::size_t first) override {
    return host_gradients().stage(first);
  }
  void request_gradients(std::size_t first) override { host_gradients().request(first); }
  bool gradients_landed(std::size_t first) override { return host_gradients().landed(first); }
  void commit_gradients(std::size_t first, std::size_t end) override {
    host_gradients().commit(first, end);
  }
  void commit_gradients() override { host_gradients().commit_rest(); }
  // A backward pass writes the device's gradients: a host copy the last update read is old.
  void device_gradients_written() {
    if (host_grads_) host_grads_->device_written();
  }

 private:
  Buffer& accumulator_buffer() override { return acc_; }
  bool gradients_on_host() const { return host_grads_ && host_grads_->final(); }
  // The update's gradients: the host copy where the step handed them back there.
  NamedArg gradient_arg() {
    return gradients_on_host() ? NamedArg{"g", host_grads_->host()} : NamedArg{"g", grads_};
  }
  MappedGradients& host_gradients() {
    if (!host_grads_) host_grads_.emplace(context(), grads_, model_.trainable);
    return *host_grads_;
  }
  void upload_zeros(Buffer& b) { b.upload(std::vector<float>(b.size(), 0.0f)); }

  // A whole training step recorded (train_step): what decides its dispatches, and the
  // handles on the values that change from step to step.
  using StepKey = std::tuple<const Plan*, const DataFeed*, std::size_t, bool, int, std::size_t,
                             std::array<float, 4>>;
  struct RecordedStep {
    explicit RecordedStep(StepKey k, std::size_t c = 0) : key(std::move(k)), calls(c) {}
    StepKey key;
    std::size_t calls = 0;
    std::optional<Sequence> sequence;
    std::optional<SequenceUniform> first, epoch_seed, learning_rate, correction1, correction2;
  };
  StepKey step_key(const Plan& plan, const DataFeed& feed, const TrainStep& t) const;
  void record_step(ComputePlan& plan, DataFeed& feed, const TrainStep& t, RecordedStep& r);
  void set_step_values(const TrainStep& t, RecordedStep& r);

  Buffer params_, grads_, acc_, first_moment_, second_moment_;
  std::optional<MappedGradients> host_grads_;
  std::optional<ComputeKernel> update_;
  std::optional<RecordedStep> recorded_step_;
};

ComputeEngine::StepKey ComputeEngine::step_key(const Plan& plan, const DataFeed& feed,
                                               const TrainStep& t) const {
  std::array<float, 4> hyper{};
  if (const auto* sgd = std::get_if<SGD>(t.optimizer)) {
    hyper = {sgd->momentum, sgd->weight_decay, 0, 0};
  } else {
    const auto& adam = std::get<Adam>(*t.optimizer);
    hyper = {adam.beta1, adam.beta2, adam.epsilon, adam.weight_decay};
  }
  return {&plan, &feed, t.valid, t.augmentation->flip, t.augmentation->shift, t.optimizer->index(),
          hyper};
}

// Records the step's dispatches into one Sequence, in three captures so that each value's
// dispatches are known: the gather (first, the augmentation's seed), the passes and loss,
// the update (learning rate, Adam's corrections).
void ComputeEngine::record_step(ComputePlan& plan, DataFeed& feed, const TrainStep& t,
                                RecordedStep& r) {
  r = RecordedStep(r.key, r.calls);
  r.sequence.emplace(context(), "nn training step");
  Sequence& s = *r.sequence;
  s.capture([&] { plan.gather(feed, t.first, t.valid, *t.augmentation, t.epoch_seed); });
  const std::size_t gathered = s.size();
  s.capture([&] {
    plan.forward(t.seed);
    plan.loss(t.valid, true, false, 0);
    plan.backward();
  });
  const std::size_t updating = s.size();
  s.capture([&] { update(*t.optimizer, t.learning_rate, t.step); });
  r.first = s.uniform("first", 0, gathered);
  if (t.augmentation->enabled()) r.epoch_seed = s.uniform("seed", 0, gathered);
  if (updating == s.size()) return;  // nothing trainable: no update
  r.learning_rate = s.uniform("lr", updating, s.size());
  if (std::holds_alternative<Adam>(*t.optimizer)) {
    r.correction1 = s.uniform("correction1", updating, s.size());
    r.correction2 = s.uniform("correction2", updating, s.size());
  }
}

void ComputeEngine::set_step_values(const TrainStep& t, RecordedStep& r) {
  r.first->set(static_cast<std::uint32_t>(t.first));
  if (r.epoch_seed) r.epoch_seed->set(t.epoch_seed);
  if (r.learning_rate) r.learning_rate->set(t.learning_rate);
  if (r.correction1) {
    const AdamCorrections c = adam_corrections(std::get<Adam>(*t.optimizer), t.step);
    r.correction1->set(c.first);
    r.correction2->set(c.second);
  }
}

// The first step of a kind runs as it is (kernels made, GEMMs tuned), the second is recorded
// and replayed, later ones only replayed with their values: the dispatches the parts would
// issue, so the same bits.
void ComputeEngine::train_step(Plan& plan, DataFeed& feed, const TrainStep& t) {
  auto& p = static_cast<ComputePlan&>(plan);
  if (!p.replay_passes()) return Engine::train_step(plan, feed, t);
  const StepKey key = step_key(plan, feed, t);
  if (!recorded_step_ || recorded_step_->key != key) recorded_step_.emplace(key);
  RecordedStep& r = *recorded_step_;
  if (r.calls++ == 0) return Engine::train_step(plan, feed, t);
  if (!r.sequence || !r.sequence->replayable()) {
    try {
      record_step(p, feed, t, r);  // with this step's values
    } catch (const UnsupportedError&) {
      // Something in the step would have to run at once (a transfer): run it as it is.
      r.sequence.reset();
      return Engine::train_step(plan, feed, t);
    }
  } else {
    set_step_values(t, r);
    device_gradients_written();  // what the recorded backward pass did on the host
  }
  r.sequence->replay();
}

void ComputeEngine::reset_optimizer(const Optimizer& optimizer) {
  const std::size_t n = std::max<std::size_t>(model_.trainable, 1);
  if (const auto* sgd = std::get_if<SGD>(&optimizer)) {
    if (sgd->momentum != 0.0f) {
      first_moment_ = Buffer(context(), ElementType::Float32, n);
      upload_zeros(first_moment_);
    }
  } else {
    first_moment_ = Buffer(context(), ElementType::Float32, n);
    second_moment_ = Buffer(context(), ElementType::Float32, n);
    upload_zeros(first_moment_);
    upload_zeros(second_moment_);
  }
  update_.emplace(compile(context(), update_source(optimizer)));
}

void ComputeEngine::update(const Optimizer& optimizer, float learning_rate, std::size_t step) {
  if (model_.trainable == 0) return;
  if (!update_) reset_optimizer(optimizer);
  if (const auto* sgd = std::get_if<SGD>(&optimizer)) {
    Args args{
        {"p", params_}, gradient_arg(), {"lr", learning_rate}, {"weight_decay", sgd->weight_decay}};
    if (sgd->momentum != 0.0f) {
      args.emplace_back("v", first_moment_);
      args.emplace_back("momentum", sgd->momentum);
    }
    update_->run(args, model_.trainable);
    return;
  }
  const auto& adam = std::get<Adam>(optimizer);
  const AdamCorrections c = adam_corrections(adam, step);
  update_->run({{"p", params_},
                gradient_arg(),
                {"m", first_moment_},
                {"v", second_moment_},
                {"lr", learning_rate},
                {"weight_decay", adam.weight_decay},
                {"beta1", adam.beta1},
                {"beta2", adam.beta2},
                {"epsilon", adam.epsilon},
                {"correction1", c.first},
                {"correction2", c.second}},
               model_.trainable);
}

bool ComputePlan::replay_passes() const {
  const auto& stages = plan().stages;
  return engine_.model().options.replay && !timer().enabled() &&
         std::none_of(stages.begin(), stages.end(),
                      [](const Stage& s) { return s.kind == Stage::Kind::Dropout; });
}

void ComputePlan::forward(std::uint32_t seed) {
  if (!replay_passes()) return StagedPlan::forward(seed);
  forward_pass_.run([&] { StagedPlan::forward(seed); });
}

void ComputePlan::backward(const std::function<void(std::size_t layer)>& layer_done) {
  engine_.device_gradients_written();
  // A caller told of each layer as it finishes (gradient staging) gets the stages one by one.
  if (layer_done || !replay_passes()) return StagedPlan::backward(layer_done);
  backward_pass_.run([&] { StagedPlan::backward({}); });
}

ComputePlan::ComputePlan(ComputeEngine& engine, const PlanKey& key)
    : StagedPlan(engine.model(), key, "compute"),
      engine_(engine),
      forward_pass_(engine.context(), fmt::format("nn forward, batch {}", key.batch)),
      backward_pass_(engine.context(), fmt::format("nn backward, batch {}", key.batch)) {
  const Context& ctx = engine.context();
  const StagePlan& p = plan();
  for (std::size_t s = 0; s < p.slot_count(); ++s) {
    acts_.emplace_back(ctx, ElementType::Float32, p.values(s));
    grads_.emplace_back();
    if (p.has_gradient(s)) grads_[s] = Buffer(ctx, ElementType::Float32, p.values(s));
  }
  labels_ = Buffer(ctx, ElementType::Uint32, key.batch);
  ComputeStageContext sc{ctx,      engine.model().options, key.batch,
                         key.mode, engine.params(),        engine.grads()};
  // The stages' kernels (a few dozen for a CNN) compile together when the batch ends.
  CompileBatch batch(ctx);
  std::vector<std::unique_ptr<StageKernels>> kernels;
  for (const auto& s : p.stages) {
    StageBuffers b;
    b.x = &acts_[s.input_slot];
    b.y = &acts_[s.slot];
    if (p.train()) {
      b.dy = &grads_[s.slot];
      if (grads_[s.input_slot].valid()) b.dx = &grads_[s.input_slot];
    }
    kernels.push_back(make_compute_runner(sc, s, b));
  }
  set_kernels(std::move(kernels));
}

KernelSource input_copy_source() {
  return ComputePath::source(glsl::scale, {}, "nn copy");
}

KernelSource output_gradient_source(const StagePlan& plan) {
  return ComputePath::source(glsl::scale, activation_defines(plan.output_act, {}),
                             "nn output gradient");
}

void ComputePlan::load_input(const Buffer& x) {
  check_input(x.size());
  if (!copy_) copy_.emplace(compile(engine_.context(), input_copy_source()));
  copy_->run({{"src", x}, {"dst", acts_[0]}}, x.size());
}

void ComputePlan::gather(DataFeed& feed, std::size_t first, std::size_t valid,
                         const Augmentation& augmentation, std::uint32_t seed) {
  check_gather(feed, first, valid);
  auto& f = dynamic_cast<ComputeFeed&>(feed);
  const Shape& in = plan().input;
  if (!gather_ || gather_augmentation_.flip != augmentation.flip ||
      gather_augmentation_.shift != augmentation.shift) {
    gather_.emplace(engine_.context(), gather_defines(in, augmentation), "nn gather batch");
    gather_augmentation_ = augmentation;
  }
  GatherValues values{static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(valid),
                      engine_.model().normalization, std::nullopt};
  if (augmentation.enabled()) values.seed = seed;
  timer().time("gather batch", [&] {
    gather_->run({f.data().pixels(), f.data().label_buffer(), f.order()}, values, acts_[0], labels_,
                 acts_[0].size(), batch());
  });
}

void ComputePlan::loss(std::size_t valid, bool gradient, bool predict, std::size_t offset) {
  check_loss(gradient);
  const std::size_t slot = plan().output_slot;
  const auto kernel_key = std::make_pair(gradient, predict);
  auto it = loss_kernels_.find(kernel_key);
  if (it == loss_kernels_.end()) {
    it =
        loss_kernels_
            .emplace(kernel_key, compile(engine_.context(), loss_source(plan(), gradient, predict)))
            .first;
  }
  Args args{{"z", acts_[slot]},
            {"labels", labels_},
            {"acc", engine_.accumulators()},
            {"valid", static_cast<std::uint32_t>(valid)}};
  if (gradient) args.emplace_back("dz", grads_[slot]);
  if (predict) {
    args.emplace_back("pred", engine_.predictions());
    args.emplace_back("pred_offset", static_cast<std::uint32_t>(offset));
  }
  timer().time("softmax cross-entropy", [&] { it->second.run_groups(args, Size3{1, 1, 1}); });
}

void ComputePlan::load_output_gradient(const Buffer& dy) {
  check_output_gradient(dy.size());
  const std::size_t slot = plan().output_slot;
  const ComputePath path(engine_.context());
  if (!scale_output_)
    scale_output_.emplace(compile(engine_.context(), output_gradient_source(plan())));
  scale_output_->run(bind_operands(path, glsl::scale, {.act = plan().output_act.kind},
                                   {{"src", &dy}, {"dst", &grads_[slot]}, {"y", &acts_[slot]}}, {}),
                     dy.size());
}

}  // namespace

std::unique_ptr<Engine> make_compute_engine(const ModelState& model) {
  return std::make_unique<ComputeEngine>(model);
}

std::vector<KernelSource> compute_plan_sources(const DeviceInfo& info, const StagePlan& plan,
                                               const BackendOptions& options) {
  std::vector<KernelSource> sources;
  auto add = [&](std::vector<KernelSource> more) {
    for (auto& k : more) sources.push_back(std::move(k));
  };
  for (const auto& s : plan.stages) {
    const StageKernelNeeds needs{plan.train(), plan.train() && plan.has_gradient(s.input_slot)};
    add(compute_stage_sources(info, s, plan.key.batch, plan.key.mode, options, needs));
  }
  if (plan.input.rank() == 3) {
    add(batch_gather_sources(info, gather_defines(plan.input, {.flip = true, .shift = 2}),
                             "nn gather batch"));
  }
  add({input_copy_source(), loss_source(plan, plan.train(), !plan.train())});
  if (plan.train()) {
    add({output_gradient_source(plan), update_source(SGD{}), update_source(SGD{.momentum = 0.9f}),
         update_source(Adam{})});
  }
  return sources;
}

}  // namespace gpgpu::nn::detail
