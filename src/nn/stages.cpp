// How a model's layers become stages: Dense, Conv2D and BatchNorm absorb the activation
// that follows them; Flatten (and Dropout outside training) become aliases of their input.
//
// The gradient convention that makes fusion work: the gradient a stage receives is with
// respect to its output before its fused activation. So whoever writes a stage's output
// gradient (the next stage's backward, or the loss) multiplies by the derivative of that
// activation, computed from the activation's output, which is exactly that writer's input.
#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "model_state.hpp"

namespace gpgpu::nn::detail {

namespace {

Act activation_of(const Layer& layer) {
  if (std::holds_alternative<ReLU>(layer)) return Act::ReLU;
  if (std::holds_alternative<Sigmoid>(layer)) return Act::Sigmoid;
  if (std::holds_alternative<Tanh>(layer)) return Act::Tanh;
  return Act::None;
}

bool absorbs_activation(const Layer& layer) {
  return std::holds_alternative<Dense>(layer) || std::holds_alternative<Conv2D>(layer) ||
         std::holds_alternative<BatchNorm>(layer);
}

Stage::Kind kind_of(const Layer& layer, Mode mode) {
  if (std::holds_alternative<Dense>(layer)) return Stage::Kind::Dense;
  if (std::holds_alternative<Conv2D>(layer)) return Stage::Kind::Conv;
  if (std::holds_alternative<MaxPool2D>(layer)) return Stage::Kind::MaxPool;
  if (std::holds_alternative<AvgPool2D>(layer)) return Stage::Kind::AvgPool;
  if (std::holds_alternative<BatchNorm>(layer)) return Stage::Kind::BatchNorm;
  if (std::holds_alternative<Softmax>(layer)) return Stage::Kind::Softmax;
  if (activation_of(layer) != Act::None) return Stage::Kind::Activation;
  if (const auto* d = std::get_if<Dropout>(&layer)) {
    return mode == Mode::Train && d->rate > 0.0f ? Stage::Kind::Dropout : Stage::Kind::Alias;
  }
  return Stage::Kind::Alias;  // Flatten
}

std::vector<std::size_t> offsets_of(const ModelState& model, std::size_t layer) {
  std::vector<std::size_t> offsets;
  for (const auto& p : model.params) {
    if (p.layer == layer) offsets.push_back(p.offset);
  }
  return offsets;
}

}  // namespace

std::vector<Stage> build_stages(const ModelState& model, Mode mode, bool fuse_loss) {
  std::vector<Stage> stages;
  std::size_t input_stage = Stage::model_input, slot = 0, next_slot = 1;
  Act input_act = Act::None;
  const std::size_t n = model.layers.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Layer& layer = model.layers[i];
    if (fuse_loss && i + 1 == n && std::holds_alternative<Softmax>(layer)) break;
    Stage s;
    s.kind = kind_of(layer, mode);
    s.layer = i;
    s.spec = layer;
    s.in = i == 0 ? model.input : model.shapes[i - 1];
    s.offsets = offsets_of(model, i);
    if (s.kind == Stage::Kind::Activation) s.act = activation_of(layer);
    if (absorbs_activation(layer) && i + 1 < n && activation_of(model.layers[i + 1]) != Act::None) {
      s.act = activation_of(model.layers[i + 1]);
      ++i;
    }
    s.out = model.shapes[i];
    s.input_stage = input_stage;
    s.input_slot = slot;
    s.input_act = input_act;
    if (s.kind == Stage::Kind::Alias) {
      s.slot = slot;
    } else {
      s.slot = next_slot++;
      slot = s.slot;
      input_stage = stages.size();
      input_act = s.act;
    }
    stages.push_back(std::move(s));
  }
  return stages;
}

std::size_t slot_count(const std::vector<Stage>& stages) {
  std::size_t count = 1;
  for (const auto& s : stages) count = std::max(count, s.slot + 1);
  return count;
}

}  // namespace gpgpu::nn::detail
