// Internal: what a Sequential holds, how its layers become stages (fused kernels), and the
// interface each backend implements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/nn/data.hpp"
#include "gpgpu/nn/layers.hpp"
#include "gpgpu/nn/model.hpp"
#include "gpgpu/nn/optimizers.hpp"

namespace gpgpu::nn::detail {

// Activations that fuse into the kernel producing their input (and whose derivative the
// kernel consuming their output applies). The values are the GLSL ACT codes.
enum class Act { None = 0, ReLU = 1, Sigmoid = 2, Tanh = 3 };

// One kernel group of a plan: a layer, possibly with the activation after it fused in.
struct Stage {
  enum class Kind { Dense, Conv, MaxPool, AvgPool, Activation, Dropout, BatchNorm, Softmax, Alias };
  static constexpr std::size_t model_input = std::numeric_limits<std::size_t>::max();
  Kind kind = Kind::Alias;
  std::size_t layer = 0;  // the main layer's index
  Layer spec;
  Act act = Act::None;               // fused activation; for Kind::Activation the activation itself
  Act input_act = Act::None;         // the activation that produced this stage's input
  Shape in, out;                     // per sample
  std::vector<std::size_t> offsets;  // flat offsets of the layer's parameters, in spec order
  std::size_t input_stage = model_input;  // the real (non-alias) stage whose output is the input
  std::size_t slot = 0;  // activation slot of the output (aliases share their input's)
  std::size_t input_slot = 0;
};

// The stages of a model for a mode. With fuse_loss, a final Softmax is left out (the loss
// kernel applies it).
std::vector<Stage> build_stages(const ModelState& model, Mode mode, bool fuse_loss);
// The number of activation slots the stages use (slot 0 is the model input).
std::size_t slot_count(const std::vector<Stage>& stages);

// The per-backend copy of a data set for gathering batches, and the epoch's order.
class DataFeed {
 public:
  virtual ~DataFeed() = default;
  virtual void set_order(std::span<const std::uint32_t> order) = 0;
  virtual std::size_t count() const = 0;
};

// Kernels and buffers for one batch size and mode.
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
  virtual const Buffer& output() const = 0;
  // Softmax cross-entropy of the output against the gathered labels over the first `valid`
  // rows: adds loss sum and correct count to the engine's accumulators; writes dL/dlogits
  // (divided by the batch) when `gradient`; writes predictions[offset + n] when given.
  virtual void loss(std::size_t valid, bool gradient, Buffer* predictions, std::size_t offset) = 0;
  // Sets dL/d(output) from a Buffer (instead of loss()).
  virtual void load_output_gradient(const Buffer& dy) = 0;
  virtual void backward() = 0;
  virtual const Buffer& input_gradient() const = 0;
};

struct PlanKey {
  std::size_t batch;
  Mode mode;
  bool fuse_loss;
  bool input_gradient;
  auto operator<=>(const PlanKey&) const = default;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual void upload_parameters(std::span<const float> values) = 0;
  virtual std::vector<float> download_parameters() = 0;
  virtual std::vector<float> download_gradients() = 0;
  virtual std::unique_ptr<Plan> make_plan(const PlanKey& key) = 0;
  virtual std::unique_ptr<DataFeed> make_feed(const DeviceDataset& data) = 0;
  virtual void reset_optimizer(const Optimizer& optimizer) = 0;
  // One update of every trainable parameter; `step` counts from 1 (Adam's bias correction).
  virtual void update(const Optimizer& optimizer, float learning_rate, std::size_t step) = 0;
  virtual void reset_accumulators() = 0;
  virtual std::pair<double, double> read_accumulators() = 0;  // loss sum, correct count

  Plan& plan(const PlanKey& key) {
    auto& slot = plans_[key];
    if (!slot) slot = make_plan(key);
    return *slot;
  }

 private:
  std::map<PlanKey, std::unique_ptr<Plan>> plans_;
};

std::unique_ptr<Engine> make_compute_engine(const ModelState& model);
std::unique_ptr<Engine> make_transform_feedback_engine(const ModelState& model);

struct ModelState {
  const Context* context = nullptr;
  Shape input;
  std::vector<Layer> layers;
  std::vector<Shape> shapes;  // per sample, after each layer
  std::vector<ParameterInfo> params;
  std::size_t total = 0, trainable = 0;
  Normalization normalization;
  std::vector<std::string> class_names;
  bool initialized = false;
  std::vector<float> host_values;  // the truth while there is no engine
  Backend backend = Backend::Compute;
  BackendOptions options;
  std::unique_ptr<Engine> engine;
  std::uint32_t forward_count = 0;  // seeds dropout in Sequential::forward
  Plan* last_train_plan = nullptr;

  // The engine of the current backend, made (and given the parameters) on first use.
  Engine& ensure_engine();
  // Rebuilds params, shapes and the flat layout after the layers changed.
  void lay_out_parameters();
};

// Parameter initialisation (init.cpp): values for every parameter from a seed.
std::vector<float> initial_values(const ModelState& model, std::uint64_t seed);

}  // namespace gpgpu::nn::detail
