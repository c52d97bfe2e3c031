// The CPU backend: parameters, gradients and optimizer state in flat host arrays; a plan per
// batch size with one array per activation slot; the batch gather from the data set's
// host copy, the loss and the optimizers as loops on the engine's thread pool.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/blas.hpp"
#include "cpu/cpu_ops.hpp"
#include "cpu/cpu_stage.hpp"
#include "gpgpu/error.hpp"
#include "model_state.hpp"
#include "plan/hash.hpp"
#include "plan/optimizer_step.hpp"

namespace gpgpu::nn::detail {

namespace {

class CpuFeed final : public DataFeed {
 public:
  explicit CpuFeed(const DeviceDataset& data) : DataFeed(data) {}
  void set_order(std::span<const std::uint32_t> order) override {
    order_.assign(order.begin(), order.end());
  }
  const std::vector<std::uint32_t>& order() const { return order_; }

 private:
  std::vector<std::uint32_t> order_;
};

class CpuEngine;

class CpuPlan final : public StagedPlan {
 public:
  CpuPlan(CpuEngine& engine, const PlanKey& key);
  void load_input(const Buffer& x) override {
    check_input(x.size());
    x.download(std::span<float>(acts_[0]));
  }
  void gather(DataFeed& feed, std::size_t first, std::size_t valid,
              const Augmentation& augmentation, std::uint32_t seed) override;
  void forward(std::uint32_t seed) override {
    blas::SingleThreaded one_thread_each;
    StagedPlan::forward(seed);
  }
  std::vector<float> output() override { return acts_[plan().output_slot]; }
  void loss(std::size_t valid, bool gradient, bool predict, std::size_t offset) override;
  void load_output_gradient(const Buffer& dy) override {
    check_output_gradient(dy.size());
    auto& target = grads_[plan().output_slot];
    dy.download(std::span<float>(target));
    cpu::scale_by_derivative(target.data(), acts_[plan().output_slot].data(), target.size(),
                             plan().output_act);
  }
  using Plan::backward;
  void backward(const std::function<void(std::size_t layer)>& layer_done) override {
    blas::SingleThreaded one_thread_each;
    StagedPlan::backward(layer_done);
  }
  std::vector<float> input_gradient() override {
    check_input_gradient();
    return grads_[0];
  }

 private:
  CpuEngine& engine_;
  std::vector<std::vector<float>> acts_, grads_;
  std::vector<std::uint32_t> labels_;
};

class CpuEngine final : public Engine {
 public:
  explicit CpuEngine(const ModelState& model)
      : model_(model),
        pool_(cpu_threads(model.options)),
        params_(std::max<std::size_t>(model.total, 1), 0.0f),
        grads_(std::max<std::size_t>(model.trainable, 1), 0.0f) {}

  const ModelState& model() const { return model_; }
  ThreadPool& pool() { return pool_; }
  float* params() { return params_.data(); }
  float* gradients() { return grads_.data(); }
  void accumulate(double loss, double correct) {
    loss_ += loss;
    correct_ += correct;
  }
  std::vector<int>& predictions() { return predictions_; }

  void upload_parameters(std::span<const float> values) override {
    std::copy(values.begin(), values.end(), params_.begin());
  }
  std::vector<float> download_parameters() override {
    return {params_.begin(), params_.begin() + static_cast<std::ptrdiff_t>(model_.total)};
  }
  std::vector<float> download_gradients() override {
    std::vector<float> g(model_.total, 0.0f);
    std::copy_n(grads_.begin(), model_.trainable, g.begin());
    return g;
  }
  std::unique_ptr<Plan> make_plan(const PlanKey& key) override {
    return std::make_unique<CpuPlan>(*this, key);
  }
  std::unique_ptr<DataFeed> make_feed(const DeviceDataset& data) override {
    return std::make_unique<CpuFeed>(data);
  }
  void reset_optimizer(const Optimizer& optimizer) override {
    const bool adam = std::holds_alternative<Adam>(optimizer);
    const bool momentum = !adam && std::get<SGD>(optimizer).momentum != 0.0f;
    first_.assign(adam || momentum ? model_.trainable : 0, 0.0f);
    second_.assign(adam ? model_.trainable : 0, 0.0f);
    optimizer_ready_ = true;
  }
  void update(const Optimizer& optimizer, float learning_rate, std::size_t step) override;
  void reset_accumulators() override { loss_ = correct_ = 0; }
  std::pair<double, double> read_accumulators() override { return {loss_, correct_}; }
  void begin_predictions(std::size_t count) override { predictions_.assign(count, 0); }
  std::vector<int> read_predictions() override { return predictions_; }
  void begin_gradient_staging() override {}
  std::span<float> stage_gradients(std::size_t) override {
    return {grads_.data(), model_.trainable};
  }
  std::span<float> gradient_array() override { return {grads_.data(), model_.trainable}; }
  void commit_gradients() override {}

 private:
  const ModelState& model_;
  ThreadPool pool_;
  std::vector<float> params_, grads_, first_, second_;
  bool optimizer_ready_ = false;
  double loss_ = 0, correct_ = 0;
  std::vector<int> predictions_;
};

// The update formulas of optimizers.hpp, as the GPU kernels run them, over element ranges.
void CpuEngine::update(const Optimizer& optimizer, float learning_rate, std::size_t step) {
  if (model_.trainable == 0) return;
  if (!optimizer_ready_) reset_optimizer(optimizer);
  float* p = params_.data();
  const float* g = grads_.data();
  float* m = first_.data();
  float* v = second_.data();
  const float lr = learning_rate;
  if (const auto* sgd = std::get_if<SGD>(&optimizer)) {
    const float wd = sgd->weight_decay, mu = sgd->momentum;
    pool_.for_ranges(model_.trainable, [&](std::size_t i0, std::size_t i1, std::size_t) {
      for (std::size_t i = i0; i < i1; ++i) {
        float s = g[i] + wd * p[i];
        if (mu != 0.0f) {
          s = mu * m[i] + s;
          m[i] = s;
        }
        p[i] -= lr * s;
      }
    });
    return;
  }
  const auto& a = std::get<Adam>(optimizer);
  const AdamCorrections c = adam_corrections(a, step);
  pool_.for_ranges(model_.trainable, [&](std::size_t i0, std::size_t i1, std::size_t) {
    for (std::size_t i = i0; i < i1; ++i) {
      const float grad = g[i] + a.weight_decay * p[i];
      const float mi = a.beta1 * m[i] + (1.0f - a.beta1) * grad;
      const float vi = a.beta2 * v[i] + (1.0f - a.beta2) * grad * grad;
      m[i] = mi;
      v[i] = vi;
      p[i] -= lr * (mi * c.first) / (std::sqrt(vi * c.second) + a.epsilon);
    }
  });
}

CpuPlan::CpuPlan(CpuEngine& engine, const PlanKey& key)
    : StagedPlan(engine.model(), key, "cpu"), engine_(engine), labels_(key.batch, 0) {
  const StagePlan& p = plan();
  for (std::size_t s = 0; s < p.slot_count(); ++s) {
    acts_.emplace_back(p.values(s), 0.0f);
    grads_.emplace_back(p.has_gradient(s) ? p.values(s) : 0, 0.0f);
  }
  const CpuStageContext sc{engine.pool(), key.batch, key.mode, engine.params(), engine.gradients()};
  std::vector<std::unique_ptr<StageKernels>> kernels;
  for (const auto& s : p.stages) {
    CpuStageArrays a{acts_[s.input_slot].data(), acts_[s.slot].data(), nullptr, nullptr};
    if (p.train()) {
      a.dy = grads_[s.slot].data();
      if (p.has_gradient(s.input_slot)) a.dx = grads_[s.input_slot].data();
    }
    kernels.push_back(s.kind == Stage::Kind::Alias ? nullptr : make_cpu_kernels(sc, s, a));
  }
  set_kernels(std::move(kernels));
}

// The gather kernel's arithmetic (glsl/snippets.hpp) per sample: flip and shift, then
// (p / 255 - mean) / std.
void CpuPlan::gather(DataFeed& feed, std::size_t first, std::size_t valid,
                     const Augmentation& augmentation, std::uint32_t seed) {
  check_gather(feed, first, valid);
  const auto& f = dynamic_cast<const CpuFeed&>(feed);
  const DeviceDataset& data = f.data();
  const Shape& in = plan().input;
  const std::size_t channels = in[0], h = in[1], w = in[2], image = in.size();
  const auto& packed = data.packed_pixels();
  const auto norm = model().normalization;
  const float mean = norm.mean, inv_std = 1.0f / norm.stddev;
  timer().time("gather batch", [&] {
    engine_.pool().for_ranges(batch(), [&](std::size_t n0, std::size_t n1, std::size_t) {
      for (std::size_t n = n0; n < n1; ++n) {
        const std::uint32_t s = f.order()[first + std::min(n, valid - 1)];
        labels_[n] = static_cast<std::uint32_t>(data.labels()[s]);
        const SampleShift shift = sample_shift(seed, s, augmentation.flip, augmentation.shift);
        float* x = acts_[0].data() + n * image;
        for (std::size_t c = 0; c < channels; ++c) {
          for (std::size_t yy = 0; yy < h; ++yy) {
            for (std::size_t xx = 0; xx < w; ++xx) {
              const long sx =
                  (shift.flip ? static_cast<long>(w - 1 - xx) : static_cast<long>(xx)) - shift.dx;
              const long sy = static_cast<long>(yy) - shift.dy;
              float v = 0.0f;
              if (sx >= 0 && sy >= 0 && sx < static_cast<long>(w) && sy < static_cast<long>(h)) {
                const std::size_t j = s * image + (c * h + static_cast<std::size_t>(sy)) * w +
                                      static_cast<std::size_t>(sx);
                v = static_cast<float>((packed[j >> 2] >> ((j & 3u) * 8u)) & 255u);
              }
              x[(c * h + yy) * w + xx] = (v * (1.0f / 255.0f) - mean) * inv_std;
            }
          }
        }
      }
    });
  });
}

// Softmax cross-entropy per row (loss.hpp), sums in float64.
void CpuPlan::loss(std::size_t valid, bool gradient, bool predict, std::size_t offset) {
  check_loss(gradient);
  const std::size_t classes = plan().output[0], rows = batch();
  const float* z = acts_[plan().output_slot].data();
  float* dz = gradient ? grads_[plan().output_slot].data() : nullptr;
  double loss_sum = 0, correct = 0;
  timer().time("softmax cross-entropy", [&] {
    for (std::size_t row = 0; row < rows; ++row) {
      const float* logits = z + row * classes;
      const std::size_t best =
          static_cast<std::size_t>(std::max_element(logits, logits + classes) - logits);
      const double largest = logits[best];
      double sum = 0;
      for (std::size_t j = 0; j < classes; ++j) sum += std::exp(logits[j] - largest);
      const std::size_t label = labels_[row];
      const bool counted = row < valid;
      if (counted) {
        loss_sum += std::log(sum) - (logits[label] - largest);
        correct += best == label ? 1.0 : 0.0;
        if (predict) engine_.predictions().at(offset + row) = static_cast<int>(best);
      }
      if (dz == nullptr) continue;
      for (std::size_t j = 0; j < classes; ++j) {
        const double p = std::exp(logits[j] - largest) / sum - (j == label ? 1.0 : 0.0);
        dz[row * classes + j] = counted ? static_cast<float>(p / static_cast<double>(rows)) : 0.0f;
      }
    }
    if (dz != nullptr) cpu::scale_by_derivative(dz, z, rows * classes, plan().output_act);
  });
  engine_.accumulate(loss_sum, correct);
}

}  // namespace

std::unique_ptr<Engine> make_cpu_engine(const ModelState& model) {
  return std::make_unique<CpuEngine>(model);
}

}  // namespace gpgpu::nn::detail
