// Internal: what a backend implements. An Engine owns the parameters, their gradients and
// the optimizer state in its own memory (device buffers, textures or host arrays); a Plan
// runs one StagePlan (a batch size and mode) with arrays and kernels made once; a DataFeed
// is the backend's view of a data set. Everything a backend shares with the others — the
// stages, the argument checks, the forward and backward loops — lives in staged_plan.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/nn/data.hpp"
#include "gpgpu/nn/optimizers.hpp"
#include "plan/stage_plan.hpp"

namespace gpgpu::nn::detail {

// The per-backend copy of a data set for gathering batches, and the epoch's order.
class DataFeed {
 public:
  explicit DataFeed(const DeviceDataset& data) : data_(data) {}
  virtual ~DataFeed() = default;
  virtual void set_order(std::span<const std::uint32_t> order) = 0;
  const DeviceDataset& data() const { return data_; }
  std::size_t count() const { return data_.count(); }

 private:
  const DeviceDataset& data_;
};

// Kernels and arrays for one batch size and mode.
class Plan {
 public:
  virtual ~Plan() = default;
  virtual std::size_t batch() const = 0;
  // Copies a (batch, input...) Buffer into the input slot.
  virtual void load_input(const Buffer& x) = 0;
  // Gathers samples order[first .. first + batch) (positions past `valid` repeat the last
  // valid one) into the input slot and the labels, normalising and augmenting.
  virtual void gather(DataFeed& feed, std::size_t first, std::size_t valid,
                      const Augmentation& augmentation, std::uint32_t seed) = 0;
  virtual void forward(std::uint32_t seed) = 0;
  // The outputs of the last forward pass, (batch, output...).
  virtual std::vector<float> output() = 0;
  // Softmax cross-entropy of the output against the gathered labels over the first `valid`
  // rows: adds loss sum and correct count to the engine's accumulators; writes dL/dlogits
  // (divided by the batch) when `gradient`; stores the predicted classes at the engine's
  // predictions[offset + n] when `predict`.
  virtual void loss(std::size_t valid, bool gradient, bool predict, std::size_t offset) = 0;
  // Sets dL/d(output) from a Buffer (instead of loss()).
  virtual void load_output_gradient(const Buffer& dy) = 0;
  void backward() { backward({}); }
  // The backward pass, calling `layer_done(layer)` after each stage whose kernels ran (the
  // stages run last to first): that layer's parameter gradients are final from then on.
  virtual void backward(const std::function<void(std::size_t layer)>& layer_done) = 0;
  // dL/d(input) of the last backward pass, (batch, input...).
  virtual std::vector<float> input_gradient() = 0;
};

// One training step's values (Engine::train_step).
struct TrainStep {
  std::size_t first = 0, valid = 0;  // the batch: order[first .. first + valid)
  const Augmentation* augmentation = nullptr;
  std::uint32_t epoch_seed = 0;  // augmentation's
  std::uint32_t seed = 0;        // the forward pass's (dropout masks)
  const Optimizer* optimizer = nullptr;
  float learning_rate = 0;
  std::size_t step = 1;  // counts from 1
};

class Engine {
 public:
  virtual ~Engine() = default;
  // A training step without hooks: gather, forward, loss and its gradient, backward, update.
  // The default runs them one by one; the compute backend replays a recording of them.
  virtual void train_step(Plan& plan, DataFeed& feed, const TrainStep& t) {
    plan.gather(feed, t.first, t.valid, *t.augmentation, t.epoch_seed);
    plan.forward(t.seed);
    plan.loss(t.valid, true, false, 0);
    plan.backward();
    update(*t.optimizer, t.learning_rate, t.step);
  }
  virtual void upload_parameters(std::span<const float> values) = 0;
  virtual std::vector<float> download_parameters() = 0;
  // All parameters' gradients, flat like the parameters (zeros for frozen ones).
  virtual std::vector<float> download_gradients() = 0;
  virtual std::unique_ptr<Plan> make_plan(const PlanKey& key) = 0;
  virtual std::unique_ptr<DataFeed> make_feed(const DeviceDataset& data) = 0;
  virtual void reset_optimizer(const Optimizer& optimizer) = 0;
  // One update of every trainable parameter; `step` counts from 1 (Adam's bias correction).
  virtual void update(const Optimizer& optimizer, float learning_rate, std::size_t step) = 0;
  virtual void reset_accumulators() = 0;
  virtual std::pair<double, double> read_accumulators() = 0;  // loss sum, correct count
  // read_accumulators() in two halves, so that a progress report need not drain the GPU:
  // request_accumulators() starts a read without waiting; take_accumulators() returns what
  // the accumulators held then, waiting for that read only (without a request: reads now).
  // The default reads at once.
  virtual void request_accumulators() { requested_ = read_accumulators(); }
  virtual std::pair<double, double> take_accumulators() { return requested_; }
  // Room for `count` predictions that Plan::loss(..., predict) fills; read once at the end.
  virtual void begin_predictions(std::size_t count) = 0;
  virtual std::vector<int> read_predictions() = 0;
  // The trainable parameters' gradients of a step as one flat host array (ParameterInfo::
  // offset order), for a caller to read or change before update(); after a change,
  // commit_gradients() hands them back. begin_gradient_staging() starts a step;
  // stage_gradients(first) makes positions [first, trainable) current in the array (their
  // layers' backward must have run) and returns all of it; positions staged before in this
  // step are not read again, so a caller may change them (or an MPI reduction may be
  // writing them) meanwhile. The CPU backend returns its own array (no copy); the GPU
  // backends download into a host copy and upload all of it again.
  virtual void begin_gradient_staging() = 0;
  virtual std::span<float> stage_gradients(std::size_t first) = 0;
  // The same without waiting: queues the copy of [first, trainable) and returns;
  // gradients_landed(first) tells when positions [first, trainable) are in the array (a
  // copy of later layers lands before those of earlier ones, queued after it, have). The
  // default copies at once (a backend without asynchronous downloads).
  virtual void request_gradients(std::size_t first) { stage_gradients(first); }
  virtual bool gradients_landed(std::size_t /*first*/) { return true; }
  virtual std::span<float> gradient_array() = 0;  // the array as it is, without waiting
  // Hands positions [first, end) back now (GradientStaging::commit); commit_gradients()
  // hands back the rest. The default leaves all of it to commit_gradients().
  virtual void commit_gradients(std::size_t /*first*/, std::size_t /*end*/) {}
  virtual void commit_gradients() = 0;
  // Submits the commands queued so far (a step whose gradients travel through the host
  // drains the GPU's queue: what comes next should start at once, not at the next wait).
  virtual void submit() {}

  Plan& plan(const PlanKey& key) {
    auto& slot = plans_[key];
    if (!slot) slot = make_plan(key);
    return *slot;
  }

 private:
  std::map<PlanKey, std::unique_ptr<Plan>> plans_;
  std::pair<double, double> requested_{};  // the default request_accumulators()' read
};

std::unique_ptr<Engine> make_cpu_engine(const ModelState& model);
std::unique_ptr<Engine> make_compute_engine(const ModelState& model);
std::unique_ptr<Engine> make_transform_feedback_engine(const ModelState& model);

}  // namespace gpgpu::nn::detail
