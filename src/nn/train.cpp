// Trainer and evaluate: the step loop over a device-resident data set, reading the loss
// accumulators only every report_every steps.
#include "gpgpu/nn/train.hpp"

#include <chrono>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "model_state.hpp"
#include "plan/hash.hpp"

namespace gpgpu::nn {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void check_data_fits(const Sequential& model, const DeviceDataset& data, const char* what) {
  if (model.input_shape() != data.sample_shape()) {
    throw ArgumentError(fmt::format("{}: the data's samples are {} but the model takes {}", what,
                                    data.sample_shape().to_string(),
                                    model.input_shape().to_string()));
  }
  const Shape out = model.output_shape();
  if (out.rank() != 1 || out[0] < data.classes()) {
    throw ArgumentError(fmt::format(
        "{}: the data has {} classes but the model's output is {}; the last layer must give one "
        "value per class",
        what, data.classes(), out.to_string()));
  }
}

}  // namespace

namespace detail {

struct TrainerState {
  Sequential* model = nullptr;
  const DeviceDataset* data = nullptr;
  TrainOptions options;
  Engine* engine = nullptr;
  Plan* plan = nullptr;
  std::unique_ptr<DataFeed> feed;
  std::size_t epochs = 0, steps = 0;
  std::uint64_t engine_number = 0;

  // (Re)binds to the model's current engine: a backend switch makes a new one (possibly at
  // the old one's address, so the count of engines made tells).
  void bind() {
    Engine& current = model->state().ensure_engine();
    if (model->state().engines_made == engine_number) return;
    engine_number = model->state().engines_made;
    engine = &current;
    plan = &current.plan({options.batch, Mode::Train, true, false});
    feed = current.make_feed(*data);
    current.reset_optimizer(options.optimizer);
  }
};

}  // namespace detail

Trainer::Trainer(Sequential& model, const DeviceDataset& data, TrainOptions options)
    : state_(std::make_unique<detail::TrainerState>()) {
  check_data_fits(model, data, "nn::Trainer");
  if (options.batch == 0 || options.batch > data.count()) {
    throw ArgumentError(
        fmt::format("nn::Trainer: the batch size must be in [1, {}] (the data's "
                    "size); got {}",
                    data.count(), options.batch));
  }
  if (options.report_every == 0) options.report_every = 1;
  state_->model = &model;
  state_->data = &data;
  state_->options = options;
  state_->bind();
}

Trainer::~Trainer() = default;
Trainer::Trainer(Trainer&&) noexcept = default;
Trainer& Trainer::operator=(Trainer&&) noexcept = default;

EpochResult Trainer::run_epoch(const std::function<void(const Progress&)>& on_progress) {
  auto& s = *state_;
  s.bind();
  const auto& o = s.options;
  EpochResult result;
  result.epoch = s.epochs;
  result.learning_rate = scheduled_learning_rate(learning_rate(o.optimizer), o.schedule, s.epochs,
                                                 o.epochs, o.step_epochs);
  const auto lr = static_cast<float>(result.learning_rate);
  std::size_t steps = s.data->count() / o.batch;
  if (o.limit_steps > 0) steps = std::min(steps, o.limit_steps);
  const auto order = shuffled_indices(s.data->count(), o.seed, s.epochs);
  const auto epoch_seed = detail::pcg_hash(static_cast<std::uint32_t>(o.seed) ^
                                           detail::pcg_hash(static_cast<std::uint32_t>(s.epochs)));
  const auto start = Clock::now();
  s.feed->set_order(order);
  s.engine->reset_accumulators();
  double reported_loss = 0, reported_at = 0;
  for (std::size_t step = 0; step < steps; ++step) {
    s.plan->gather(*s.feed, step * o.batch, o.batch, o.augmentation, epoch_seed);
    s.plan->forward(detail::pcg_hash(epoch_seed + static_cast<std::uint32_t>(step)));
    s.plan->loss(o.batch, true, false, 0);
    s.plan->backward();
    if (o.gradient_hook) {
      o.gradient_hook(s.engine->host_gradients());
      s.engine->commit_gradients();
    }
    s.engine->update(o.optimizer, lr, ++s.steps);
    const bool last = step + 1 == steps;
    if ((step + 1) % o.report_every == 0 || last) {
      const auto [loss_sum, correct] = s.engine->read_accumulators();
      const double samples = static_cast<double>((step + 1) * o.batch) - reported_at;
      Progress p;
      p.epoch = s.epochs;
      p.step = step + 1;
      p.steps = steps;
      p.loss = (loss_sum - reported_loss) / samples;
      p.seconds = seconds_since(start);
      p.images_per_second = static_cast<double>((step + 1) * o.batch) / p.seconds;
      result.loss_curve.push_back(p.loss);
      reported_loss = loss_sum;
      reported_at = static_cast<double>((step + 1) * o.batch);
      if (last) {
        result.stats.loss_sum = loss_sum;
        result.stats.correct = correct;
        result.stats.count = steps * o.batch;
      }
      if (on_progress) on_progress(p);
    }
  }
  result.seconds = seconds_since(start);
  result.steps = steps;
  ++s.epochs;
  return result;
}

std::size_t Trainer::epochs_done() const {
  return state_->epochs;
}
std::size_t Trainer::steps_done() const {
  return state_->steps;
}
const TrainOptions& Trainer::options() const {
  return state_->options;
}

Evaluation evaluate(Sequential& model, const DeviceDataset& data, std::size_t batch) {
  check_data_fits(model, data, "nn::evaluate");
  if (batch == 0) throw ArgumentError("nn::evaluate: the batch size must be positive");
  batch = std::min(batch, data.count());
  auto& engine = model.state().ensure_engine();
  auto& plan = engine.plan({batch, Mode::Eval, true, false});
  auto feed = engine.make_feed(data);
  std::vector<std::uint32_t> order(data.count());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  const auto start = Clock::now();
  feed->set_order(order);
  engine.reset_accumulators();
  engine.begin_predictions(data.count());
  for (std::size_t first = 0; first < data.count(); first += batch) {
    const std::size_t valid = std::min(batch, data.count() - first);
    plan.gather(*feed, first, valid, {}, 0);
    plan.forward(0);
    plan.loss(valid, false, true, first);
  }
  const auto [loss_sum, correct] = engine.read_accumulators();
  Evaluation e;
  e.predictions = engine.read_predictions();
  e.seconds = seconds_since(start);
  e.stats = {loss_sum, correct, data.count()};
  e.classes = std::max(data.classes(), model.output_shape()[0]);
  e.confusion = confusion_matrix(e.predictions, data.labels(), e.classes);
  return e;
}

}  // namespace gpgpu::nn
