// ArrayTrainer, predict and evaluate over float32 samples in host memory (gpgpu/nn/arrays.hpp):
// each batch is copied to the device, the loss and its gradient are computed on the host.
#include "gpgpu/nn/arrays.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "epoch.hpp"
#include "gpgpu/error.hpp"
#include "model_state.hpp"
#include "plan/hash.hpp"

namespace gpgpu::nn {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The number of samples in `samples` for `model`, or SizeMismatchError naming `what`.
std::size_t sample_count(const Sequential& model, std::span<const float> samples,
                         const char* what) {
  const std::size_t per = model.input_shape().size();
  if (samples.empty() || samples.size() % per != 0) {
    throw SizeMismatchError(fmt::format(
        "{}: the model takes samples of {} ({} values each); {} values are not a whole number of "
        "them",
        what, model.input_shape().to_string(), per, samples.size()));
  }
  return samples.size() / per;
}

std::size_t classes_of(const Sequential& model, const char* what) {
  const Shape out = model.output_shape();
  if (out.rank() != 1) {
    throw ArgumentError(fmt::format(
        "{}: the model's output per sample is {}; a classifier gives one value per class", what,
        out.to_string()));
  }
  return out[0];
}

void check_labels(std::span<const int> labels, std::size_t classes, const char* what) {
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] < 0 || static_cast<std::size_t>(labels[i]) >= classes) {
      throw ArgumentError(
          fmt::format("{}: label {} of sample {} is outside [0, {}) (the model's {} "
                      "outputs)",
                      what, labels[i], i, classes, classes));
    }
  }
}

// Copies samples order[first .. first + batch) into `out` (positions past the data repeat the
// last sample there).
void gather(std::span<const float> samples, std::size_t per, std::span<const std::uint32_t> order,
            std::size_t first, std::size_t batch, std::vector<float>& out) {
  out.resize(batch * per);
  for (std::size_t n = 0; n < batch; ++n) {
    const std::size_t at = std::min(first + n, order.size() - 1);
    std::memcpy(out.data() + n * per, samples.data() + order[at] * per, per * sizeof(float));
  }
}

struct BatchLoss {
  double loss_sum = 0, correct = 0;
};

// Softmax cross-entropy of the first `valid` rows of logits (batch x classes) against their
// labels; with `gradient`, dL/dlogits = (softmax - onehot) / batch for every row (padding rows
// get zero).
BatchLoss host_loss(const std::vector<float>& logits, std::size_t batch, std::size_t valid,
                    std::span<const int> labels, std::vector<float>* gradient,
                    std::vector<int>* predictions) {
  const std::size_t k = logits.size() / batch;
  BatchLoss b;
  if (gradient) gradient->assign(logits.size(), 0.0f);
  for (std::size_t n = 0; n < valid; ++n) {
    const auto s =
        softmax_cross_entropy(std::span<const float>(logits).subspan(n * k, k), labels[n]);
    b.loss_sum += s.loss;
    b.correct += s.predicted == labels[n];
    if (predictions) predictions->push_back(s.predicted);
    if (!gradient) continue;
    for (std::size_t j = 0; j < k; ++j) {
      (*gradient)[n * k + j] = static_cast<float>(s.gradient[j] / static_cast<double>(batch));
    }
  }
  return b;
}

std::vector<std::uint32_t> identity_order(std::size_t count) {
  std::vector<std::uint32_t> order(count);
  for (std::size_t i = 0; i < count; ++i) order[i] = static_cast<std::uint32_t>(i);
  return order;
}

}  // namespace

namespace detail {

struct ArrayTrainerState {
  Sequential* model = nullptr;
  std::span<const float> samples;
  std::span<const int> labels;
  TrainOptions options;
  std::size_t count = 0, per = 0, epochs = 0, steps = 0;
  Engine* engine = nullptr;
  Plan* plan = nullptr;
  std::uint64_t engine_number = 0;
  Buffer input, output_gradient;  // one batch of samples, one of dL/dlogits
  std::vector<float> host_batch, host_gradient;

  // (Re)binds to the model's current engine (a backend switch makes a new one).
  void bind() {
    Engine& current = model->state().ensure_engine();
    if (model->state().engines_made == engine_number) return;
    engine_number = model->state().engines_made;
    engine = &current;
    // The plan Trainer uses: a final Softmax is left to the loss.
    plan = &current.plan({options.batch, Mode::Train, true, false});
    current.reset_optimizer(options.optimizer);
  }
};

}  // namespace detail

ArrayTrainer::ArrayTrainer(Sequential& model, std::span<const float> samples,
                           std::span<const int> labels, TrainOptions options)
    : state_(std::make_unique<detail::ArrayTrainerState>()) {
  const char* what = "nn::ArrayTrainer";
  const std::size_t count = sample_count(model, samples, what);
  if (count != labels.size()) {
    throw SizeMismatchError(
        fmt::format("{}: {} samples but {} labels", what, count, labels.size()));
  }
  check_labels(labels, classes_of(model, what), what);
  if (options.batch == 0 || options.batch > count) {
    throw ArgumentError(
        fmt::format("{}: the batch size must be in [1, {}] (the data's size); got {}", what, count,
                    options.batch));
  }
  if (options.augmentation.enabled() || options.shard.count > 0 || options.gradient_hook ||
      options.gradients_ready) {
    throw ArgumentError(fmt::format(
        "{}: augmentation, batch shards and gradient hooks belong to nn::Trainer (byte images on "
        "the device); float samples train without them",
        what));
  }
  if (options.report_every == 0) options.report_every = 1;
  auto& s = *state_;
  s.model = &model;
  s.samples = samples;
  s.labels = labels;
  s.options = options;
  s.count = count;
  s.per = model.input_shape().size();
  s.bind();
  s.input = Buffer(model.context(), ElementType::Float32, options.batch * s.per);
  s.output_gradient =
      Buffer(model.context(), ElementType::Float32, options.batch * classes_of(model, what));
}

ArrayTrainer::~ArrayTrainer() = default;
ArrayTrainer::ArrayTrainer(ArrayTrainer&&) noexcept = default;
ArrayTrainer& ArrayTrainer::operator=(ArrayTrainer&&) noexcept = default;

EpochResult ArrayTrainer::run_epoch(const std::function<void(const Progress&)>& on_progress) {
  auto& s = *state_;
  s.bind();
  const auto& o = s.options;
  auto [result, steps, order, epoch_seed] = detail::start_epoch(o, s.count, s.epochs);
  std::vector<int> batch_labels(o.batch);
  const auto start = Clock::now();
  double reported_loss = 0, loss_sum = 0, correct = 0;
  std::size_t reported_at = 0;
  for (std::size_t step = 0; step < steps; ++step) {
    gather(s.samples, s.per, order, step * o.batch, o.batch, s.host_batch);
    for (std::size_t n = 0; n < o.batch; ++n) batch_labels[n] = s.labels[order[step * o.batch + n]];
    s.input.upload(std::span<const float>(s.host_batch));
    s.plan->load_input(s.input);
    s.plan->forward(detail::pcg_hash(epoch_seed + static_cast<std::uint32_t>(step)));
    const auto b =
        host_loss(s.plan->output(), o.batch, o.batch, batch_labels, &s.host_gradient, nullptr);
    loss_sum += b.loss_sum;
    correct += b.correct;
    s.output_gradient.upload(std::span<const float>(s.host_gradient));
    s.plan->load_output_gradient(s.output_gradient);
    s.plan->backward();
    s.engine->update(o.optimizer, static_cast<float>(result.learning_rate), s.steps + 1);
    ++s.steps;
    if ((step + 1) % o.report_every != 0 && step + 1 != steps) continue;
    Progress p;
    p.epoch = result.epoch;
    p.step = step + 1;
    p.steps = steps;
    const std::size_t samples = (step + 1) * o.batch;
    p.loss = (loss_sum - reported_loss) / static_cast<double>(samples - reported_at);
    p.seconds = seconds_since(start);
    p.images_per_second = static_cast<double>(samples) / p.seconds;
    result.loss_curve.push_back(p.loss);
    reported_loss = loss_sum;
    reported_at = samples;
    if (on_progress) on_progress(p);
  }
  result.stats = {loss_sum, correct, steps * o.batch};
  result.seconds = seconds_since(start);
  result.steps = steps;
  ++s.epochs;
  return result;
}

std::size_t ArrayTrainer::epochs_done() const {
  return state_->epochs;
}
std::size_t ArrayTrainer::steps_done() const {
  return state_->steps;
}

std::vector<float> predict(Sequential& model, std::span<const float> samples, Outputs what,
                           std::size_t batch) {
  const std::size_t count = sample_count(model, samples, "nn::predict");
  if (batch == 0) throw ArgumentError("nn::predict: the batch size must be positive");
  batch = std::min(batch, count);
  const std::size_t per = model.input_shape().size();
  auto& engine = model.state().ensure_engine();
  auto& plan = engine.plan({batch, Mode::Eval, what == Outputs::Logits, false});
  const auto order = identity_order(count);
  Buffer input(model.context(), ElementType::Float32, batch * per);
  std::vector<float> host, out;
  for (std::size_t first = 0; first < count; first += batch) {
    const std::size_t valid = std::min(batch, count - first);
    gather(samples, per, order, first, batch, host);
    input.upload(std::span<const float>(host));
    plan.load_input(input);
    plan.forward(0);
    const auto y = plan.output();
    const std::size_t width = y.size() / batch;
    out.insert(out.end(), y.begin(), y.begin() + static_cast<std::ptrdiff_t>(valid * width));
  }
  return out;
}

Evaluation evaluate(Sequential& model, std::span<const float> samples, std::span<const int> labels,
                    std::size_t batch) {
  const char* what = "nn::evaluate";
  const std::size_t count = sample_count(model, samples, what);
  if (count != labels.size()) {
    throw SizeMismatchError(
        fmt::format("{}: {} samples but {} labels", what, count, labels.size()));
  }
  const std::size_t classes = classes_of(model, what);
  check_labels(labels, classes, what);
  const auto start = Clock::now();
  const auto logits = predict(model, samples, Outputs::Logits, batch);
  Evaluation e;
  const auto b = host_loss(logits, count, count, labels, nullptr, &e.predictions);
  e.seconds = seconds_since(start);
  e.stats = {b.loss_sum, b.correct, count};
  e.classes = classes;
  e.confusion = confusion_matrix(e.predictions, labels, classes);
  return e;
}

}  // namespace gpgpu::nn
