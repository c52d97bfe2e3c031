// The transform-feedback backend: parameters in one texture (all of them, read by every
// vertex shader), gradients and optimizer state in per-array Buffers, activations and
// gradients as Buffer + Texture pairs; gathering, loss and update as vertex shaders too.
#include <cmath>

#include <fmt/format.h>

#include "glsl_common.hpp"
#include "gpgpu/error.hpp"
#include "stage_timer.hpp"
#include "tf_common.hpp"
#include "tf_kernels.hpp"

namespace gpgpu::nn::detail {

namespace {

constexpr const char* copy_to_texture_source = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Source { float src[]; };
layout(r32f, binding = 0) writeonly uniform highp image2D dst;
uniform int offset;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  int j = offset + int(i);
  int width = imageSize(dst).x;
  imageStore(dst, ivec2(j % width, j / width), vec4(src[i], 0.0, 0.0, 0.0));
}
)";

constexpr const char* copy_to_int_source = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Source { float src[]; };
layout(std430, binding = 1) writeonly buffer Target { int dst[]; };
uniform uint offset;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  dst[offset + i] = int(src[i]);
}
)";

// Copies an array (times the derivative of the output's activation when ACT != 0).
constexpr const char* scale_source = R"(
in float src;
#if ACT != 0
in float y;
#endif
out float dst;
void main() {
#if ACT != 0
  dst = src * act_grad_of_output(y);
#else
  dst = src;
#endif
}
)";

class TfFeed final : public DataFeed {
 public:
  TfFeed(const Context& context, const DeviceDataset& data)
      : count_(data.count()),
        sample_shape_(data.sample_shape()),
        pixels_(Texture::from_array(context, TexelType::Uint,
                                    std::span<const std::uint32_t>(data.packed_pixels()))),
        order_(Texture::array(context, TexelType::Uint, data.count())) {
    std::vector<std::uint32_t> labels(data.labels().begin(), data.labels().end());
    labels_ = Texture::from_array(context, TexelType::Uint, std::span<const std::uint32_t>(labels));
  }
  void set_order(std::span<const std::uint32_t> order) override { order_.upload(order); }
  std::size_t count() const override { return count_; }
  const Shape& sample_shape() const { return sample_shape_; }
  const Texture& pixels() const { return pixels_; }
  const Texture& labels() const { return labels_; }
  const Texture& order() const { return order_; }

 private:
  std::size_t count_;
  Shape sample_shape_;
  Texture pixels_, labels_, order_;
};

class TfEngine;

class TfPlan final : public Plan {
 public:
  TfPlan(TfEngine& engine, const PlanKey& key);
  std::size_t batch() const override { return key_.batch; }
  void load_input(const Buffer& x) override;
  void gather(DataFeed& feed, std::size_t first, std::size_t valid,
              const Augmentation& augmentation, std::uint32_t seed) override;
  void forward(std::uint32_t seed) override;
  const Buffer& output() const override { return acts_[output_slot_].buffer; }
  void loss(std::size_t valid, bool gradient, Buffer* predictions, std::size_t offset) override;
  void load_output_gradient(const Buffer& dy) override;
  void backward() override;
  const Buffer& input_gradient() const override {
    if (!key_.input_gradient) throw Error("nn: this plan computes no input gradient");
    return grads_[0].buffer;
  }

 private:
  std::size_t slot_size(std::size_t slot) const;
  TfStageContext stage_context();

  TfEngine& engine_;
  PlanKey key_;
  std::vector<Stage> stages_;
  std::vector<TfArray> acts_, grads_;
  TfArray labels_, row_loss_, row_correct_;
  Buffer row_predicted_;
  std::vector<std::unique_ptr<TfRunner>> runners_;
  std::vector<std::string> names_;
  StageTimer timer_;
  std::size_t output_slot_ = 0;
  Act output_act_ = Act::None;
  std::optional<TransformFeedbackKernel> gather_pixels_, gather_labels_, loss_rows_, loss_gradient_,
      accumulate_, copy_in_, scale_out_;
  Augmentation gather_augmentation_;
};

class TfEngine final : public Engine {
 public:
  explicit TfEngine(const ModelState& model)
      : model_(model),
        copier_(*model.context),
        params_(Texture::array(*model.context, TexelType::Float,
                               std::max<std::size_t>(model.total, 1))),
        acc_(*model.context, 2),
        acc_spare_(*model.context, ElementType::Float32, 2) {
    for (std::size_t i = 0; i < model.params.size(); ++i) {
      const auto& p = model.params[i];
      parameter_at_[p.offset] = i;
      gradients_.emplace_back();
      if (p.trainable) {
        gradients_.back() = Buffer(context(), ElementType::Float32, p.shape.size());
        gradients_.back().upload(std::vector<float>(p.shape.size(), 0.0f));
      }
    }
    reset_accumulators();
  }

  const ModelState& model() const { return model_; }
  const Context& context() const { return *model_.context; }
  TfCopier& copier() { return copier_; }
  Texture& params() { return params_; }
  std::vector<Buffer>& gradients() { return gradients_; }
  const std::map<std::size_t, std::size_t>& parameter_at() const { return parameter_at_; }
  TfArray& accumulators() { return acc_; }
  // Where the next accumulation is captured (transform feedback cannot update in place).
  Buffer& spare_accumulators() { return acc_spare_; }

  void upload_parameters(std::span<const float> values) override {
    if (values.empty()) return;
    std::vector<float> padded(values.begin(), values.end());
    padded.resize(params_.length(), 0.0f);
    params_.upload(padded);
  }
  std::vector<float> download_parameters() override {
    auto v = params_.to_vector<float>();
    v.resize(model_.total);
    return v;
  }
  std::vector<float> download_gradients() override {
    std::vector<float> flat(model_.total, 0.0f);
    for (std::size_t i = 0; i < model_.params.size(); ++i) {
      if (!gradients_[i].valid()) continue;
      const auto g = gradients_[i].to_vector<float>();
      std::copy(g.begin(), g.end(),
                flat.begin() + static_cast<std::ptrdiff_t>(model_.params[i].offset));
    }
    return flat;
  }
  std::unique_ptr<Plan> make_plan(const PlanKey& key) override {
    return std::make_unique<TfPlan>(*this, key);
  }
  std::unique_ptr<DataFeed> make_feed(const DeviceDataset& data) override {
    return std::make_unique<TfFeed>(context(), data);
  }
  void reset_optimizer(const Optimizer& optimizer) override;
  void update(const Optimizer& optimizer, float learning_rate, std::size_t step) override;
  void reset_accumulators() override {
    const std::vector<float> zeros(2, 0.0f);
    acc_.buffer.upload(zeros);
    acc_.texture.upload(zeros);
  }
  std::pair<double, double> read_accumulators() override {
    const auto v = acc_.buffer.to_vector<float>();
    return {v[0], v[1]};
  }

 private:
  // Per trainable array: two copies of each moment (transform feedback cannot read and write
  // one buffer), the updated weights before they are copied into the parameter texture.
  struct Moments {
    std::size_t parameter = 0;
    Buffer first[2], second[2], next;
  };

  const ModelState& model_;
  TfCopier copier_;
  Texture params_;
  TfArray acc_;
  Buffer acc_spare_;
  std::vector<Buffer> gradients_;
  std::map<std::size_t, std::size_t> parameter_at_;
  std::vector<Moments> moments_;
  int current_ = 0;
};

void TfEngine::reset_optimizer(const Optimizer& optimizer) {
  moments_.clear();
  current_ = 0;
  const bool adam = std::holds_alternative<Adam>(optimizer);
  const bool momentum = !adam && std::get<SGD>(optimizer).momentum != 0.0f;
  for (std::size_t i = 0; i < model_.params.size(); ++i) {
    const auto& p = model_.params[i];
    if (!p.trainable) continue;
    Moments m;
    m.parameter = i;
    const std::vector<float> zeros(p.shape.size(), 0.0f);
    m.next = Buffer(context(), ElementType::Float32, zeros.size());
    for (int k = 0; k < 2; ++k) {
      if (adam || momentum) m.first[k] = Buffer::from(context(), zeros);
      if (adam) m.second[k] = Buffer::from(context(), zeros);
    }
    moments_.push_back(std::move(m));
  }
}

void TfEngine::update(const Optimizer& optimizer, float learning_rate, std::size_t step) {
  if (model_.trainable == 0) return;
  if (moments_.empty()) reset_optimizer(optimizer);
  const bool adam = std::holds_alternative<Adam>(optimizer);
  const int next = 1 - current_;
  for (auto& m : moments_) {
    const auto& p = model_.params[m.parameter];
    Defines d{{"OFFSET", std::to_string(p.offset)}};
    Args args{{"params", params_},
              {"g", gradients_[m.parameter]},
              {"lr", learning_rate},
              {"w_next", m.next}};
    if (adam) {
      const auto& a = std::get<Adam>(optimizer);
      const double t = static_cast<double>(step);
      args.emplace_back("weight_decay", a.weight_decay);
      args.emplace_back("beta1", a.beta1);
      args.emplace_back("beta2", a.beta2);
      args.emplace_back("epsilon", a.epsilon);
      args.emplace_back(
          "correction1",
          static_cast<float>(1.0 / (1.0 - std::pow(static_cast<double>(a.beta1), t))));
      args.emplace_back(
          "correction2",
          static_cast<float>(1.0 / (1.0 - std::pow(static_cast<double>(a.beta2), t))));
      args.emplace_back("m", m.first[current_]);
      args.emplace_back("v", m.second[current_]);
      args.emplace_back("m_next", m.first[next]);
      args.emplace_back("v_next", m.second[next]);
    } else {
      const auto& s = std::get<SGD>(optimizer);
      args.emplace_back("weight_decay", s.weight_decay);
      if (s.momentum != 0.0f) {
        d.emplace_back("MOMENTUM", "");
        args.emplace_back("momentum", s.momentum);
        args.emplace_back("v", m.first[current_]);
        args.emplace_back("v_next", m.first[next]);
      }
    }
    // One program per parameter array (OFFSET differs); the context caches them.
    make_tf_kernel(context(), adam ? tf::adam : tf::sgd, d, "nn tf optimizer").run(args);
    copier_.to_texture(m.next, params_, p.offset);
  }
  current_ = next;
}

TfPlan::TfPlan(TfEngine& engine, const PlanKey& key)
    : engine_(engine),
      key_(key),
      stages_(build_stages(engine.model(), key.mode, key.fuse_loss)),
      timer_(engine.context(), fmt::format("transform-feedback plan, batch {}, {}", key.batch,
                                           key.mode == Mode::Train ? "training" : "evaluation")) {
  const Context& ctx = engine.context();
  if (key.batch == 0) throw ArgumentError("nn: the batch size must be positive");
  for (const auto& s : stages_) {
    if (s.kind == Stage::Kind::Alias) continue;
    output_slot_ = s.slot;
    output_act_ = s.act;
  }
  const bool train = key.mode == Mode::Train;
  const std::size_t slots = slot_count(stages_);
  for (std::size_t s = 0; s < slots; ++s) {
    acts_.emplace_back(ctx, key.batch * slot_size(s));
    grads_.emplace_back();
    if (train && (s > 0 || key.input_gradient || s == output_slot_))
      grads_[s] = TfArray(ctx, key.batch * slot_size(s));
  }
  labels_ = TfArray(ctx, key.batch);
  row_loss_ = TfArray(ctx, key.batch);
  row_correct_ = TfArray(ctx, key.batch);
  row_predicted_ = Buffer(ctx, ElementType::Float32, key.batch);
  const auto sc = stage_context();
  for (const auto& s : stages_) {
    TfStageArrays a;
    a.x = &acts_[s.input_slot];
    a.y = &acts_[s.slot];
    if (train) {
      a.dy = &grads_[s.slot];
      if (grads_[s.input_slot].valid()) a.dx = &grads_[s.input_slot];
    }
    runners_.push_back(make_tf_runner(sc, s, a));
    names_.push_back(fmt::format("layer {:2} {}{}", s.layer, layer_type(s.spec),
                                 s.act != Act::None ? " + activation" : ""));
  }
}

TfStageContext TfPlan::stage_context() {
  return {engine_.context(),      key_.batch,      key_.mode, engine_.params(), engine_.gradients(),
          engine_.parameter_at(), engine_.copier()};
}

std::size_t TfPlan::slot_size(std::size_t slot) const {
  if (slot == 0) return engine_.model().input.size();
  for (const auto& s : stages_) {
    if (s.slot == slot) return s.out.size();
  }
  return 0;
}

void TfPlan::load_input(const Buffer& x) {
  if (x.size() != acts_[0].buffer.size()) {
    throw SizeMismatchError(
        fmt::format("nn: input of {} values for a plan of {}", x.size(), acts_[0].buffer.size()));
  }
  if (!copy_in_)
    copy_in_.emplace(make_tf_kernel(engine_.context(), scale_source, {}, "nn tf load input"));
  copy_in_->run({{"src", x}, {"dst", acts_[0].buffer}});
  engine_.copier().to_texture(acts_[0]);
}

void TfPlan::gather(DataFeed& feed, std::size_t first, std::size_t valid,
                    const Augmentation& augmentation, std::uint32_t seed) {
  auto& f = dynamic_cast<TfFeed&>(feed);
  const Shape& in = engine_.model().input;
  if (in.rank() != 3 || f.sample_shape() != in) {
    throw ArgumentError(fmt::format("nn: the data's samples are {} but the model takes {}",
                                    f.sample_shape().to_string(), in.to_string()));
  }
  if (valid == 0 || first + valid > f.count()) {
    throw ArgumentError(fmt::format("nn: batch [{}, {}) outside the data's {} samples", first,
                                    first + valid, f.count()));
  }
  if (!gather_pixels_ || gather_augmentation_.flip != augmentation.flip ||
      gather_augmentation_.shift != augmentation.shift) {
    gather_pixels_.emplace(
        make_tf_kernel(engine_.context(), tf::gather_pixels,
                       {{"C", std::to_string(in[0])},
                        {"H", std::to_string(in[1])},
                        {"W", std::to_string(in[2])},
                        {"FLIP", augmentation.flip ? "1" : "0"},
                        {"SHIFT", std::to_string(std::max(0, augmentation.shift))}},
                       "nn tf gather batch"));
    gather_labels_.emplace(
        make_tf_kernel(engine_.context(), tf::gather_labels, {}, "nn tf gather labels"));
    gather_augmentation_ = augmentation;
  }
  const auto norm = engine_.model().normalization;
  timer_.time("gather batch", [&] {
    Args args{{"pixels", f.pixels()},
              {"order", f.order()},
              {"first", static_cast<std::uint32_t>(first)},
              {"valid", static_cast<std::uint32_t>(valid)},
              {"mean", norm.mean},
              {"inv_std", 1.0f / norm.stddev},
              {"x", acts_[0].buffer}};
    if (augmentation.enabled()) args.emplace_back("seed", seed);
    gather_pixels_->run(args);
    engine_.copier().to_texture(acts_[0]);
    gather_labels_->run({{"labels", f.labels()},
                         {"order", f.order()},
                         {"first", static_cast<std::uint32_t>(first)},
                         {"valid", static_cast<std::uint32_t>(valid)},
                         {"label", labels_.buffer}});
    engine_.copier().to_texture(labels_);
  });
}

void TfPlan::forward(std::uint32_t seed) {
  for (std::size_t i = 0; i < runners_.size(); ++i) {
    if (!runners_[i]) continue;
    timer_.time(names_[i] + " forward", [&] {
      runners_[i]->forward(seed);
      engine_.copier().to_texture(acts_[stages_[i].slot]);
    });
  }
}

void TfPlan::backward() {
  if (key_.mode != Mode::Train) throw Error("nn: backward() needs a plan made in Train mode");
  for (std::size_t i = runners_.size(); i-- > 0;) {
    if (!runners_[i]) continue;
    timer_.time(names_[i] + " backward", [&] {
      runners_[i]->backward();
      auto& dx = grads_[stages_[i].input_slot];
      if (dx.valid()) engine_.copier().to_texture(dx);
    });
  }
}

void TfPlan::loss(std::size_t valid, bool gradient, Buffer* predictions, std::size_t offset) {
  const Shape& out = stages_.empty() ? engine_.model().input : stages_.back().out;
  if (out.rank() != 1) {
    throw ArgumentError(
        fmt::format("nn: the loss needs (batch, classes) outputs; the model gives {}",
                    out.with_batch(key_.batch).to_string()));
  }
  if (gradient && key_.mode != Mode::Train) throw Error("nn: loss gradients need a Train plan");
  const Context& ctx = engine_.context();
  if (!loss_rows_) {
    Defines d = activation_defines(output_act_, Act::None);
    d.emplace_back("BATCH", std::to_string(key_.batch));
    d.emplace_back("CLASSES", std::to_string(out[0]));
    loss_rows_.emplace(make_tf_kernel(ctx, tf::loss_rows, d, "nn tf loss"));
    loss_gradient_.emplace(make_tf_kernel(ctx, tf::loss_gradient, d, "nn tf loss gradient"));
    accumulate_.emplace(make_tf_kernel(ctx, tf::accumulate, d, "nn tf accumulate"));
  }
  auto& copier = engine_.copier();
  auto& z = acts_[output_slot_];
  timer_.time("softmax cross-entropy", [&] {
    loss_rows_->run({{"z", z.texture},
                     {"labels", labels_.texture},
                     {"loss", row_loss_.buffer},
                     {"correct", row_correct_.buffer},
                     {"predicted", row_predicted_}});
    copier.to_texture(row_loss_);
    copier.to_texture(row_correct_);
    auto& acc = engine_.accumulators();
    accumulate_->run({{"acc", acc.texture},
                      {"loss", row_loss_.texture},
                      {"correct", row_correct_.texture},
                      {"valid", static_cast<std::int32_t>(valid)},
                      {"total", engine_.spare_accumulators()}});
    std::swap(acc.buffer, engine_.spare_accumulators());
    copier.to_texture(acc);
    if (gradient) {
      loss_gradient_->run(
          {{"z", z.texture}, {"labels", labels_.texture}, {"dz", grads_[output_slot_].buffer}});
      copier.to_texture(grads_[output_slot_]);
    }
    if (predictions) copier.to_int_buffer(row_predicted_, *predictions, offset, valid);
  });
}

void TfPlan::load_output_gradient(const Buffer& dy) {
  if (key_.mode != Mode::Train) throw Error("nn: output gradients need a Train plan");
  auto& target = grads_[output_slot_];
  if (dy.size() != target.buffer.size()) {
    throw SizeMismatchError(fmt::format("nn: output gradient of {} values for outputs of {}",
                                        dy.size(), target.buffer.size()));
  }
  if (!scale_out_) {
    scale_out_.emplace(make_tf_kernel(engine_.context(), scale_source,
                                      activation_defines(output_act_, Act::None),
                                      "nn tf output gradient"));
  }
  Args args{{"src", dy}, {"dst", target.buffer}};
  if (output_act_ != Act::None) args.emplace_back("y", acts_[output_slot_].buffer);
  scale_out_->run(args);
  engine_.copier().to_texture(target);
}

}  // namespace

TfCopier::TfCopier(const Context& context) : context_(&context) {
  if (context.info().has_compute_shaders()) {
    to_texture_.emplace(context, copy_to_texture_source, Defines{}, "nn tf copy to texture");
    to_int_.emplace(context, copy_to_int_source, Defines{}, "nn tf copy predictions");
  } else {
    to_int_tf_.emplace(context, "in float src; flat out int dst; void main() { dst = int(src); }",
                       Defines{}, "nn tf copy predictions");
  }
}

void TfCopier::to_texture(const Buffer& source, Texture& texture, std::size_t offset) {
  if (!to_texture_) return texture.copy_from(source, offset);
  to_texture_->run(
      {{"src", source}, {"dst", texture}, {"offset", static_cast<std::int32_t>(offset)}},
      source.size());
}

void TfCopier::to_int_buffer(const Buffer& source, Buffer& target, std::size_t offset,
                             std::size_t count) {
  if (to_int_) {
    to_int_->run(
        {{"src", source}, {"dst", target}, {"offset", static_cast<std::uint32_t>(offset)}}, count);
    return;
  }
  if (int_scratch_.size() != source.size()) {
    int_scratch_ = Buffer(*context_, ElementType::Int32, source.size());
  }
  to_int_tf_->run({{"src", source}, {"dst", int_scratch_}});
  target.copy_from(int_scratch_, 0, offset, count);
}

std::unique_ptr<Engine> make_transform_feedback_engine(const ModelState& model) {
  return std::make_unique<TfEngine>(model);
}

}  // namespace gpgpu::nn::detail
