// How a model's layers become stages: Dense, Conv2D and BatchNorm absorb the activation
// that follows them; Flatten (and Dropout outside training) become aliases of their input.
#include "plan/stage_plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "model_state.hpp"
#include "plan/hash.hpp"

namespace gpgpu::nn::detail {

namespace {

Activation activation_of(const Layer& layer) {
  if (std::holds_alternative<ReLU>(layer)) return {Act::ReLU};
  if (std::holds_alternative<Sigmoid>(layer)) return {Act::Sigmoid};
  if (std::holds_alternative<Tanh>(layer)) return {Act::Tanh};
  if (const auto* l = std::get_if<LeakyReLU>(&layer)) return {Act::LeakyReLU, l->alpha};
  if (const auto* c = std::get_if<Clip>(&layer)) return {Act::Clip, c->min, c->max};
  return {};
}

bool absorbs_activation(const Layer& layer) {
  return std::holds_alternative<Dense>(layer) || std::holds_alternative<Conv2D>(layer) ||
         std::holds_alternative<BatchNorm>(layer);
}

Stage::Kind kind_of(const Layer& layer, Mode mode) {
  if (std::holds_alternative<Dense>(layer)) return Stage::Kind::Dense;
  if (std::holds_alternative<Conv2D>(layer)) return Stage::Kind::Conv;
  if (std::holds_alternative<MaxPool2D>(layer)) return Stage::Kind::MaxPool;
  if (std::holds_alternative<AvgPool2D>(layer) || std::holds_alternative<GlobalAvgPool2D>(layer)) {
    return Stage::Kind::AvgPool;
  }
  if (std::holds_alternative<BatchNorm>(layer)) return Stage::Kind::BatchNorm;
  if (std::holds_alternative<Softmax>(layer)) return Stage::Kind::Softmax;
  if (!activation_of(layer).none()) return Stage::Kind::Activation;
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

std::vector<Stage> build_stages(const ModelState& model, Mode mode, bool fuse_loss) {
  std::vector<Stage> stages;
  std::size_t input_stage = Stage::model_input, slot = 0, next_slot = 1;
  Activation input_act;
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
    if (absorbs_activation(layer) && i + 1 < n && !activation_of(model.layers[i + 1]).none()) {
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

std::size_t window_stride(std::size_t size, std::size_t stride) {
  return stride == 0 ? size : stride;
}

}  // namespace

ConvGeometry Stage::conv() const {
  const auto& c = std::get<Conv2D>(spec);
  return {in[0], in[1], in[2], out[0], out[1], out[2], c.kernel, c.stride, padding_of(c)};
}

PoolGeometry Stage::pool() const {
  PoolGeometry g;
  g.channels = in[0];
  g.ih = in[1];
  g.iw = in[2];
  g.oh = out[1];
  g.ow = out[2];
  g.max = kind == Kind::MaxPool;
  if (const auto* p = std::get_if<MaxPool2D>(&spec)) {
    g.size_y = g.size_x = p->size;
    g.stride = window_stride(p->size, p->stride);
    g.pad = padding_of(*p);
  } else if (const auto* a = std::get_if<AvgPool2D>(&spec)) {
    g.size_y = g.size_x = a->size;
    g.stride = window_stride(a->size, a->stride);
    g.pad = padding_of(*a);
    g.count_include_pad = a->count_include_pad;
  } else {  // GlobalAvgPool2D: one window over the whole plane
    g.size_y = g.ih;
    g.size_x = g.iw;
  }
  return g;
}

bool PoolGeometry::clipped() const {
  return pad != Padding{} || (oh - 1) * stride + size_y > ih || (ow - 1) * stride + size_x > iw;
}

std::size_t PoolGeometry::area(std::size_t oy, std::size_t ox) const {
  // Window rows [y0, y0 + size_y) in padded coordinates, cut at the padded input's end and,
  // without count_include_pad, at the input's edges as well.
  auto extent = [&](std::size_t o, std::size_t size, std::size_t before, std::size_t after,
                    std::size_t input) {
    const std::size_t start = o * stride, limit = before + input + (count_include_pad ? after : 0);
    const std::size_t first = count_include_pad ? start : std::max(start, before);
    const std::size_t end = std::min(start + size, limit);
    return end > first ? end - first : 0;
  };
  return extent(oy, size_y, pad.top, pad.bottom, ih) * extent(ox, size_x, pad.left, pad.right, iw);
}

float Stage::dropout_rate() const {
  return std::get<Dropout>(spec).rate;
}

std::string Stage::name() const {
  return fmt::format("layer {:2} {}{}", layer, layer_type(spec), act.none() ? "" : " + activation");
}

std::uint32_t Stage::mask_seed(std::uint32_t seed) const {
  return pcg_hash(seed) ^ static_cast<std::uint32_t>(layer * 0x9E3779B9u);
}

StagePlan make_stage_plan(const ModelState& model, const PlanKey& key) {
  if (key.batch == 0) throw ArgumentError("nn: the batch size must be positive");
  StagePlan p;
  p.key = key;
  p.input = model.input;
  p.stages = build_stages(model, key.mode, key.fuse_loss);
  p.output = model.input;
  p.slot_sizes.push_back(model.input.size());
  for (const auto& s : p.stages) {
    p.output = s.out;
    if (s.kind == Stage::Kind::Alias) continue;
    p.output_slot = s.slot;
    p.output_act = s.act;
    p.slot_sizes.resize(std::max(p.slot_sizes.size(), s.slot + 1), 0);
    p.slot_sizes[s.slot] = s.out.size();
  }
  return p;
}

}  // namespace gpgpu::nn::detail
