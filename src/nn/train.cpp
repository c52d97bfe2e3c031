// Trainer and evaluate: the step loop over a device-resident data set, reading the loss
// accumulators only every report_every steps.
#include "gpgpu/nn/train.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "epoch.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/timeline.hpp"
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

std::size_t shard_size(const TrainOptions& o) {
  return o.shard.count > 0 ? o.shard.count : o.batch;
}

// The trainable range [lo, hi) of each layer's parameters (empty for layers without).
std::vector<std::pair<std::size_t, std::size_t>> trainable_ranges(const Sequential& model) {
  std::vector<std::pair<std::size_t, std::size_t>> r(model.layers().size(),
                                                     {SIZE_MAX, std::size_t{0}});
  for (const auto& p : model.parameters()) {
    if (!p.trainable) continue;
    auto& [lo, hi] = r.at(p.layer);
    lo = std::min(lo, p.offset);
    hi = std::max(hi, p.offset + p.shape.size());
  }
  return r;
}

// Turns "layer L finished backward" into "positions [ready_from, end) are final": the
// lowest start among a suffix of the layout whose layers are all done.
class ReadyTracker {
 public:
  explicit ReadyTracker(const Sequential& model) : ranges_(trainable_ranges(model)) {
    for (std::size_t l = 0; l < ranges_.size(); ++l) {
      if (ranges_[l].first < ranges_[l].second) by_offset_.push_back(l);
    }
    std::sort(by_offset_.begin(), by_offset_.end(),
              [&](std::size_t a, std::size_t b) { return ranges_[a].first > ranges_[b].first; });
  }
  void begin() {
    done_.assign(ranges_.size(), false);
    next_ = 0;
  }
  // The new ready_from, or nullopt when it did not fall.
  std::optional<std::size_t> layer_done(std::size_t layer) {
    done_.at(layer) = true;
    const std::size_t before = next_;
    while (next_ < by_offset_.size() && done_[by_offset_[next_]]) ++next_;
    if (next_ == before) return std::nullopt;
    return ranges_[by_offset_[next_ - 1]].first;
  }

 private:
  std::vector<std::pair<std::size_t, std::size_t>> ranges_;
  std::vector<std::size_t> by_offset_;  // layers with parameters, highest offset first
  std::vector<bool> done_;
  std::size_t next_ = 0;
};

// The engine's staging as the hooks see it, kept to the positions whose layers have run
// backward: a request reaching below ready_from is passed on only as far as ready_from, and
// the rest as later layers finish (ready()). Passed on whole, it copied the earlier layers'
// gradients before their kernels had run and called them landed: the last step's values (or
// zeros) went to the update. On the transform-feedback backend the step's upload of the array
// was then queued while those kernels were still writing the same buffers, and on NVIDIA's
// driver (H200, 580) the update read the kernels' values, not the uploaded ones.
class EngineStaging final : public GradientStaging {
 public:
  explicit EngineStaging(detail::Engine*& engine) : engine_(engine) {}
  // A step's backward pass starts: no layer is done, nothing is asked for.
  void begin(std::size_t end) { end_ = ready_from_ = wanted_ = end; }
  // Positions [from, end) are final: what was asked for of them goes to the engine now.
  void ready(std::size_t from) {
    ready_from_ = from;
    if (wanted_ < end_) engine_->request_gradients(std::max(wanted_, ready_from_));
  }
  std::span<float> from(std::size_t first) override {
    check_final(first, "from");
    return engine_->stage_gradients(first);
  }
  void request(std::size_t first) override {
    wanted_ = std::min(wanted_, first);
    engine_->request_gradients(std::max(first, ready_from_));
  }
  bool landed(std::size_t first) override {
    return first >= ready_from_ && engine_->gradients_landed(first);
  }
  std::span<float> array() override { return engine_->gradient_array(); }
  void commit(std::size_t first, std::size_t end) override {
    check_final(first, "commit");
    engine_->commit_gradients(first, end);
  }

 private:
  void check_final(std::size_t first, const char* what) const {
    if (first >= ready_from_) return;
    throw ArgumentError(fmt::format(
        "GradientStaging::{}({}): positions below {} (ready_from) are not final yet: their "
        "layers have not run backward; request() them to have them copied when they have",
        what, first, ready_from_));
  }

  detail::Engine*& engine_;
  std::size_t end_ = 0;         // the trainable parameters' count
  std::size_t ready_from_ = 0;  // [ready_from_, end_) has run backward this step
  std::size_t wanted_ = 0;      // the lowest position request()ed this step
};

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
  std::optional<ReadyTracker> ready;
  EngineStaging staging{engine};

  // (Re)binds to the model's current engine: a backend switch makes a new one (possibly at
  // the old one's address, so the count of engines made tells).
  void bind() {
    Engine& current = model->state().ensure_engine();
    if (model->state().engines_made == engine_number) return;
    engine_number = model->state().engines_made;
    engine = &current;
    plan = &current.plan({shard_size(options), Mode::Train, true, false});
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
  if (options.shard.count > 0 && options.shard.first + options.shard.count > options.batch) {
    throw ArgumentError(
        fmt::format("nn::Trainer: the shard [{}, {}) lies outside the global batch of {}",
                    options.shard.first, options.shard.first + options.shard.count, options.batch));
  }
  if (options.report_every == 0) options.report_every = 1;
  if (options.gradients_ready) state_->ready.emplace(model);
  state_->model = &model;
  state_->data = &data;
  state_->options = options;
  state_->bind();
}

Trainer::~Trainer() = default;
Trainer::Trainer(Trainer&&) noexcept = default;
Trainer& Trainer::operator=(Trainer&&) noexcept = default;

namespace {

void mark(const detail::TrainerState& s, const char* label) {
  if (s.options.timeline != nullptr) {
    s.options.timeline->mark(label, static_cast<long long>(s.steps));
  }
}

// The backward pass, with the hooks (TrainOptions) between it and the update.
void backward_with_hooks(detail::TrainerState& s) {
  const auto& o = s.options;
  if (!o.gradient_hook && !o.gradients_ready) {
    s.plan->backward();
    return mark(s, "backward queued");
  }
  s.engine->begin_gradient_staging();
  s.staging.begin(s.model->trainable_parameter_count());
  if (o.gradients_ready) {
    s.engine->submit();  // the GPU starts the forward pass while backward is queued
    s.ready->begin();
    s.plan->backward([&](std::size_t layer) {
      if (const auto from = s.ready->layer_done(layer)) {
        s.staging.ready(*from);
        o.gradients_ready(*from, s.staging);
      }
    });
    // The rest of the copies queued, the hook polls while they travel, then sees them land.
    s.staging.ready(0);
    s.engine->request_gradients(0);
    mark(s, "backward queued");
    while (!s.engine->gradients_landed(0)) {
      o.gradients_ready(0, s.staging);
      std::this_thread::yield();
    }
    o.gradients_ready(0, s.staging);
  } else {
    s.plan->backward();
    mark(s, "backward queued");
  }
  const auto all = s.engine->stage_gradients(0);
  mark(s, "gradients landed");
  if (o.gradient_hook) o.gradient_hook(all);
  mark(s, "gradients summed");
  s.engine->commit_gradients();
}

// An epoch's progress reports. They read the loss accumulators without draining the GPU:
// request() after a step starts a copy to host memory, take() reads it once the next step
// is queued (a read at once idled the GPU while the host queued the next step), or at once
// after the epoch's last step.
struct EpochReports {
  detail::Engine* engine;
  EpochResult& result;
  const std::function<void(const Progress&)>& on_progress;
  std::size_t steps, shard;
  Clock::time_point start;
  double reported_loss = 0, reported_at = 0;
  std::size_t pending = 0;  // the steps done at the requested report; 0: none

  void request(std::size_t done) {
    engine->request_accumulators();
    pending = done;
  }
  void take() {
    if (pending > 0) report(std::exchange(pending, 0));
  }
  void report(std::size_t done) {
    const auto [loss_sum, correct] = engine->take_accumulators();
    const double samples = static_cast<double>(done * shard);
    Progress p;
    p.epoch = result.epoch;
    p.step = done;
    p.steps = steps;
    p.loss = (loss_sum - reported_loss) / (samples - reported_at);
    p.seconds = seconds_since(start);
    p.images_per_second = samples / p.seconds;
    result.loss_curve.push_back(p.loss);
    reported_loss = loss_sum;
    reported_at = samples;
    if (done == steps) result.stats = {loss_sum, correct, steps * shard};
    if (on_progress) on_progress(p);
  }
};

}  // namespace

EpochResult Trainer::run_epoch(const std::function<void(const Progress&)>& on_progress) {
  auto& s = *state_;
  s.bind();
  const auto& o = s.options;
  auto [result, steps, order, epoch_seed] = detail::start_epoch(o, s.data->count(), s.epochs);
  const auto lr = static_cast<float>(result.learning_rate);
  const std::size_t shard = shard_size(o);
  const auto start = Clock::now();
  s.feed->set_order(order);
  s.engine->reset_accumulators();
  EpochReports reports{s.engine, result, on_progress, steps, shard, start};
  // Without hooks or a timeline, a step is one call the backend may replay from a recording.
  const bool whole_steps = !o.gradient_hook && !o.gradients_ready && o.timeline == nullptr;
  for (std::size_t step = 0; step < steps; ++step) {
    mark(s, "step");
    const std::size_t first = step * o.batch + o.shard.first;
    const std::uint32_t seed = detail::pcg_hash(epoch_seed + static_cast<std::uint32_t>(step));
    if (whole_steps) {
      s.engine->train_step(
          *s.plan, *s.feed,
          {first, shard, &o.augmentation, epoch_seed, seed, &o.optimizer, lr, s.steps + 1});
    } else {
      s.plan->gather(*s.feed, first, shard, o.augmentation, epoch_seed);
      s.plan->forward(seed);
      s.plan->loss(shard, true, false, 0);
      backward_with_hooks(s);
      s.engine->update(o.optimizer, lr, s.steps + 1);
    }
    // With the gradients through the host the queue drained: the update and the next
    // forward pass start now rather than at the next step's first wait.
    if (o.gradients_ready) s.engine->submit();
    mark(s, "update queued");
    ++s.steps;
    reports.take();
    if ((step + 1) % o.report_every == 0 || step + 1 == steps) reports.request(step + 1);
  }
  reports.take();
  result.seconds = seconds_since(start);
  result.steps = steps;
  ++s.epochs;
  return result;
}

std::string progress_line(const Progress& p, std::size_t epochs) {
  constexpr std::size_t width = 30;
  const std::size_t steps = std::max<std::size_t>(p.steps, 1);
  const std::size_t done = std::min(width, width * p.step / steps);
  return fmt::format("  epoch {}/{} [{}{}] {:3}%  {:8.0f} img/s  loss {:.4f} ", p.epoch + 1, epochs,
                     std::string(done, '#'), std::string(width - done, ' '), 100 * p.step / steps,
                     p.images_per_second, p.loss);
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
