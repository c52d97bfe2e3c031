// The transform-feedback backend: parameters in one texture (all of them, read by every
// vertex shader), gradients and optimizer state in per-array Buffers, activations and
// gradients as Buffer + Texture pairs; gathering, loss and update as vertex shaders too.
#include <cmath>

#include <fmt/format.h>

#include "glsl/snippets.hpp"
#include "gpgpu/error.hpp"
#include "model_state.hpp"
#include "plan/gpu_engine.hpp"
#include "plan/optimizer_step.hpp"
#include "tf_common.hpp"
#include "tf_kernels.hpp"

namespace gpgpu::nn::detail {

namespace {

constexpr const char* copy_to_texture_source = R"(
layout(local_size_x = gpgpu_group_size) in;
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
layout(local_size_x = gpgpu_group_size) in;
layout(std430, binding = 0) readonly buffer Source { float src[]; };
layout(std430, binding = 1) writeonly buffer Target { int dst[]; };
uniform uint offset;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  dst[offset + i] = int(src[i]);
}
)";

class TfFeed final : public DataFeed {
 public:
  TfFeed(const Context& context, const DeviceDataset& data)
      : DataFeed(data),
        pixels_(Texture::from_array(context, TexelType::Uint,
                                    std::span<const std::uint32_t>(data.packed_pixels()))),
        order_(Texture::array(context, TexelType::Uint, data.count())) {
    std::vector<std::uint32_t> labels(data.labels().begin(), data.labels().end());
    labels_ = Texture::from_array(context, TexelType::Uint, std::span<const std::uint32_t>(labels));
  }
  void set_order(std::span<const std::uint32_t> order) override { order_.upload(order); }
  const Texture& pixels() const { return pixels_; }
  const Texture& labels() const { return labels_; }
  const Texture& order() const { return order_; }

 private:
  Texture pixels_, labels_, order_;
};

// A stage's kernels, then the copy of what they wrote into the textures later stages read.
class TfStage final : public StageKernels {
 public:
  TfStage(std::unique_ptr<StageKernels> kernels, TfCopier& copier, TfArray& y, TfArray* dx)
      : kernels_(std::move(kernels)), copier_(copier), y_(y), dx_(dx) {}
  void forward(std::uint32_t seed) override {
    kernels_->forward(seed);
    copier_.to_texture(y_);
  }
  void backward() override {
    kernels_->backward();
    if (dx_ != nullptr) copier_.to_texture(*dx_);
  }

 private:
  std::unique_ptr<StageKernels> kernels_;
  TfCopier& copier_;
  TfArray& y_;
  TfArray* dx_;
};

class TfEngine;

class TfPlan final : public StagedPlan {
 public:
  TfPlan(TfEngine& engine, const PlanKey& key);
  void load_input(const Buffer& x) override;
  void gather(DataFeed& feed, std::size_t first, std::size_t valid,
              const Augmentation& augmentation, std::uint32_t seed) override;
  std::vector<float> output() override {
    return acts_[plan().output_slot].buffer.to_vector<float>();
  }
  void loss(std::size_t valid, bool gradient, bool predict, std::size_t offset) override;
  void load_output_gradient(const Buffer& dy) override;
  std::vector<float> input_gradient() override {
    check_input_gradient();
    return grads_[0].buffer.to_vector<float>();
  }

 private:
  TfStageContext stage_context();
  TfPath path();

  TfEngine& engine_;
  std::vector<TfArray> acts_, grads_;
  TfArray labels_, row_loss_, row_correct_;
  Buffer row_predicted_;
  std::optional<TransformFeedbackKernel> gather_pixels_, gather_labels_, loss_rows_, loss_gradient_,
      accumulate_, copy_in_, scale_out_;
  Augmentation gather_augmentation_;
};

class TfEngine final : public GpuEngine {
 public:
  explicit TfEngine(const ModelState& model)
      : GpuEngine(model),
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
  Buffer& accumulator_buffer() override { return acc_.buffer; }
  // The step's host copy of the gradients, flat; [staged_from_, trainable) is current.
  void begin_gradient_staging() override {
    staging_.resize(model_.trainable);
    staged_from_ = model_.trainable;
  }
  std::span<float> gradient_array() override { return staging_; }
  // Downloads the parameter arrays that hold [first, staged_from_), keeping what is staged.
  std::span<float> stage_gradients(std::size_t first) override {
    for (std::size_t i = 0; i < model_.params.size() && first < staged_from_; ++i) {
      const auto& p = model_.params[i];
      const std::size_t lo = std::max(p.offset, first);
      const std::size_t hi = std::min(p.offset + p.shape.size(), staged_from_);
      if (!gradients_[i].valid() || lo >= hi) continue;
      const auto g = gradients_[i].to_vector<float>();
      std::copy(g.begin() + static_cast<std::ptrdiff_t>(lo - p.offset),
                g.begin() + static_cast<std::ptrdiff_t>(hi - p.offset),
                staging_.begin() + static_cast<std::ptrdiff_t>(lo));
    }
    staged_from_ = std::min(staged_from_, first);
    return staging_;
  }
  void commit_gradients() override {
    for (std::size_t i = 0; i < model_.params.size(); ++i) {
      const auto& p = model_.params[i];
      if (!gradients_[i].valid() || p.offset + p.shape.size() > staging_.size()) continue;
      gradients_[i].upload(std::span<const float>(staging_).subspan(p.offset, p.shape.size()));
    }
  }

 private:
  // Per trainable array: two copies of each moment (transform feedback cannot read and write
  // one buffer), the updated weights before they are copied into the parameter texture.
  struct Moments {
    std::size_t parameter = 0;
    Buffer first[2], second[2], next;
  };

  TfCopier copier_;
  Texture params_;
  TfArray acc_;
  Buffer acc_spare_;
  std::vector<Buffer> gradients_;
  std::map<std::size_t, std::size_t> parameter_at_;
  std::vector<Moments> moments_;
  std::vector<float> staging_;  // the trainable parameters' gradients, flat
  std::size_t staged_from_ = 0;
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
    Args args{
        {"p", params_}, {"g", gradients_[m.parameter]}, {"lr", learning_rate}, {"w_next", m.next}};
    if (adam) {
      const auto& a = std::get<Adam>(optimizer);
      const AdamCorrections c = adam_corrections(a, step);
      args.emplace_back("weight_decay", a.weight_decay);
      args.emplace_back("beta1", a.beta1);
      args.emplace_back("beta2", a.beta2);
      args.emplace_back("epsilon", a.epsilon);
      args.emplace_back("correction1", c.first);
      args.emplace_back("correction2", c.second);
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
    : StagedPlan(engine.model(), key, "transform-feedback"), engine_(engine) {
  const Context& ctx = engine.context();
  const StagePlan& p = plan();
  for (std::size_t s = 0; s < p.slot_count(); ++s) {
    acts_.emplace_back(ctx, p.values(s));
    grads_.emplace_back();
    if (p.has_gradient(s)) grads_[s] = TfArray(ctx, p.values(s));
  }
  labels_ = TfArray(ctx, key.batch);
  row_loss_ = TfArray(ctx, key.batch);
  row_correct_ = TfArray(ctx, key.batch);
  row_predicted_ = Buffer(ctx, ElementType::Float32, key.batch);
  const auto sc = stage_context();
  std::vector<std::unique_ptr<StageKernels>> kernels;
  for (const auto& s : p.stages) {
    TfStageArrays a;
    a.x = &acts_[s.input_slot];
    a.y = &acts_[s.slot];
    if (p.train()) {
      a.dy = &grads_[s.slot];
      if (grads_[s.input_slot].valid()) a.dx = &grads_[s.input_slot];
    }
    auto runner = make_tf_runner(sc, s, a);
    kernels.push_back(
        runner ? std::make_unique<TfStage>(std::move(runner), engine.copier(), *a.y, a.dx)
               : nullptr);
  }
  set_kernels(std::move(kernels));
}

TfPath TfPlan::path() {
  return {engine_.context(), engine_.copier()};
}

TfStageContext TfPlan::stage_context() {
  return {engine_.context(),   batch(),
          plan().key.mode,     engine_.params(),
          engine_.gradients(), engine_.parameter_at(),
          engine_.copier()};
}

void TfPlan::load_input(const Buffer& x) {
  check_input(x.size());
  if (!copy_in_) copy_in_.emplace(path().kernel(glsl::scale, {}, "nn tf load input"));
  copy_in_->run({{"src", x}, {"dst", acts_[0].buffer}});
  engine_.copier().to_texture(acts_[0]);
}

void TfPlan::gather(DataFeed& feed, std::size_t first, std::size_t valid,
                    const Augmentation& augmentation, std::uint32_t seed) {
  check_gather(feed, first, valid);
  auto& f = dynamic_cast<TfFeed&>(feed);
  const Shape& in = plan().input;
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
  const auto norm = model().normalization;
  timer().time("gather batch", [&] {
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

void TfPlan::loss(std::size_t valid, bool gradient, bool predict, std::size_t offset) {
  check_loss(gradient);
  const std::size_t slot = plan().output_slot;
  if (!loss_rows_) {
    Defines d = activation_defines(plan().output_act, {});
    d.emplace_back("BATCH", std::to_string(batch()));
    d.emplace_back("CLASSES", std::to_string(plan().output[0]));
    loss_rows_.emplace(path().kernel(tf::loss_rows, d, "nn tf loss"));
    loss_gradient_.emplace(path().kernel(tf::loss_gradient, d, "nn tf loss gradient"));
    accumulate_.emplace(path().kernel(tf::accumulate, d, "nn tf accumulate"));
  }
  auto& copier = engine_.copier();
  auto& z = acts_[slot];
  timer().time("softmax cross-entropy", [&] {
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
          {{"z", z.texture}, {"labels", labels_.texture}, {"dz", grads_[slot].buffer}});
      copier.to_texture(grads_[slot]);
    }
    if (predict) copier.to_int_buffer(row_predicted_, engine_.predictions(), offset, valid);
  });
}

void TfPlan::load_output_gradient(const Buffer& dy) {
  check_output_gradient(dy.size());
  auto& target = grads_[plan().output_slot];
  if (!scale_out_) {
    scale_out_.emplace(path().kernel(glsl::scale, activation_defines(plan().output_act, {}),
                                     "nn tf output gradient"));
  }
  Args args{{"src", dy}, {"dst", target.buffer}};
  if (!plan().output_act.none()) args.emplace_back("y", acts_[plan().output_slot].buffer);
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
    to_int_->run({{"src", source}, {"dst", target}, {"offset", static_cast<std::uint32_t>(offset)}},
                 count);
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
