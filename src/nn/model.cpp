// Sequential: the layer list, the flat parameter layout, and the hand-over between the
// host copy of the parameters and the backend that runs them.
#include "gpgpu/nn/model.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "model_state.hpp"

namespace gpgpu::nn {

std::string_view to_string(Backend backend) {
  switch (backend) {
    case Backend::Auto:
      return "auto";
    case Backend::Cpu:
      return "cpu";
    case Backend::Compute:
      return "compute";
    case Backend::TransformFeedback:
      return "transform-feedback";
  }
  return "auto";
}

std::optional<Backend> parse_backend(std::string_view name) {
  for (Backend b : {Backend::Auto, Backend::Cpu, Backend::Compute, Backend::TransformFeedback}) {
    if (name == to_string(b)) return b;
  }
  if (name == "transform_feedback" || name == "tf") return Backend::TransformFeedback;
  return std::nullopt;
}

Backend backend_from_name(std::string_view name) {
  if (const auto b = parse_backend(name)) return *b;
  throw ArgumentError(fmt::format(
      "unknown nn backend '{}'; the backends are auto, cpu, compute, transform-feedback (tf)",
      name));
}

Backend resolve_backend(Backend backend, const Context& context) {
  if (backend != Backend::Auto) return backend;
  return context.info().is_software ? Backend::Cpu : Backend::Compute;
}

std::string ParameterInfo::key() const {
  return fmt::format("{:02}_{}", layer, name);
}

namespace detail {

void ModelState::lay_out_parameters() {
  shapes.clear();
  params.clear();
  Shape shape = input;
  std::vector<ParameterInfo> frozen;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    for (auto& spec : parameter_specs(layers[i], shape)) {
      ParameterInfo p{i, std::move(spec.name), std::move(spec.shape), spec.trainable, 0};
      (p.trainable ? params : frozen).push_back(std::move(p));
    }
    shape = output_shape(layers[i], shape);
    shapes.push_back(shape);
  }
  // Trainable parameters first, so that the optimizer updates one contiguous range.
  params.insert(params.end(), frozen.begin(), frozen.end());
  std::size_t offset = 0;
  trainable = 0;
  for (auto& p : params) {
    p.offset = offset;
    offset += p.shape.size();
    if (p.trainable) trainable = offset;
  }
  total = offset;
  std::stable_sort(
      params.begin(), params.end(),
      [](const ParameterInfo& a, const ParameterInfo& b) { return a.layer < b.layer; });
}

Engine& ModelState::ensure_engine() {
  if (engine) return *engine;
  if (layers.empty()) throw Error("nn::Sequential: the model has no layers; add some first");
  if (!initialized) {
    host_values = initial_values(*this, 1);
    initialized = true;
  }
  switch (resolve_backend(backend, *context)) {
    case Backend::Cpu:
      engine = make_cpu_engine(*this);
      break;
    case Backend::TransformFeedback:
      engine = make_transform_feedback_engine(*this);
      break;
    default:
      engine = make_compute_engine(*this);
  }
  engine->upload_parameters(host_values);
  ++engines_made;
  return *engine;
}

}  // namespace detail

Sequential::Sequential(const Context& context, Shape input)
    : state_(std::make_unique<detail::ModelState>()) {
  if (input.rank() != 1 && input.rank() != 3) {
    throw ArgumentError(fmt::format(
        "nn::Sequential: the input shape must be (channels, height, width) or (features); got {}",
        input.to_string()));
  }
  for (std::size_t d : input.dims()) {
    if (d == 0)
      throw ArgumentError(
          fmt::format("nn::Sequential: input shape {} has a zero extent", input.to_string()));
  }
  state_->context = &context;
  state_->input = std::move(input);
}

Sequential::~Sequential() = default;
Sequential::Sequential(Sequential&&) noexcept = default;
Sequential& Sequential::operator=(Sequential&&) noexcept = default;

Sequential& Sequential::add(Layer layer) {
  auto& s = *state_;
  if (s.initialized || s.engine) {
    throw Error(
        fmt::format("nn::Sequential::add: the model already has parameters; add every "
                    "layer before initialize() or the first run (adding {})",
                    describe(layer)));
  }
  const Shape in = s.shapes.empty() ? s.input : s.shapes.back();
  try {
    (void)nn::output_shape(layer, in);
  } catch (const ArgumentError& e) {
    throw ArgumentError(
        fmt::format("layer {} ({}): {}", s.layers.size(), layer_type(layer), e.what()));
  }
  s.layers.push_back(std::move(layer));
  s.lay_out_parameters();
  return *this;
}

const std::vector<Layer>& Sequential::layers() const {
  return state_->layers;
}
const Shape& Sequential::input_shape() const {
  return state_->input;
}
Shape Sequential::output_shape() const {
  return state_->shapes.empty() ? state_->input : state_->shapes.back();
}
Shape Sequential::shape_after(std::size_t layer) const {
  return state_->shapes.at(layer);
}

std::string Sequential::summary() const {
  const auto& s = *state_;
  std::string text = fmt::format("{:>3}  {:<44} {:<16} {:>10}\n", "#", "layer", "output", "params");
  text += fmt::format("{:>3}  {:<44} {:<16} {:>10}\n", "", "input", s.input.to_string(), "");
  for (std::size_t i = 0; i < s.layers.size(); ++i) {
    std::size_t count = 0;
    for (const auto& p : s.params) {
      if (p.layer == i) count += p.shape.size();
    }
    text += fmt::format("{:>3}  {:<44} {:<16} {:>10}\n", i, describe(s.layers[i]),
                        s.shapes[i].to_string(), count);
  }
  text += fmt::format("     {} parameters ({} trainable)\n", s.total, s.trainable);
  return text;
}

void Sequential::set_normalization(Normalization normalization) {
  if (!(normalization.stddev > 0.0f)) {
    throw ArgumentError(
        fmt::format("set_normalization: stddev must be positive; got {}", normalization.stddev));
  }
  state_->normalization = normalization;
}
Normalization Sequential::normalization() const {
  return state_->normalization;
}
void Sequential::set_class_names(std::vector<std::string> names) {
  state_->class_names = std::move(names);
}
const std::vector<std::string>& Sequential::class_names() const {
  return state_->class_names;
}

const std::vector<ParameterInfo>& Sequential::parameters() const {
  return state_->params;
}
std::size_t Sequential::parameter_count() const {
  return state_->total;
}
std::size_t Sequential::trainable_parameter_count() const {
  return state_->trainable;
}

void Sequential::initialize(std::uint64_t seed) {
  auto& s = *state_;
  s.host_values = detail::initial_values(s, seed);
  s.initialized = true;
  if (s.engine) s.engine->upload_parameters(s.host_values);
}

bool Sequential::initialized() const {
  return state_->initialized;
}

std::vector<float> Sequential::parameter_values() const {
  auto& s = *state_;
  if (s.engine) return s.engine->download_parameters();
  if (!s.initialized) {
    s.host_values = detail::initial_values(s, 1);
    s.initialized = true;
  }
  return s.host_values;
}

void Sequential::set_parameter_values(std::span<const float> values) {
  auto& s = *state_;
  if (values.size() != s.total) {
    throw SizeMismatchError(
        fmt::format("set_parameter_values: the model has {} parameter values; {} were given",
                    s.total, values.size()));
  }
  s.host_values.assign(values.begin(), values.end());
  s.initialized = true;
  if (s.engine) s.engine->upload_parameters(s.host_values);
}

void Sequential::set_backend(Backend backend, BackendOptions options) {
  auto& s = *state_;
  if (s.engine) {
    s.host_values = s.engine->download_parameters();
    s.engine.reset();
    s.last_train_plan = nullptr;
  }
  s.backend = backend;
  s.options = options;
}

Backend Sequential::backend() const {
  return state_->backend;
}
Backend Sequential::active_backend() const {
  return resolve_backend(state_->backend, *state_->context);
}
const BackendOptions& Sequential::backend_options() const {
  return state_->options;
}

namespace {

void check_batch_shape(const detail::ModelState& s, const Tensor& x, const char* what) {
  if (!x.valid() || x.shape().rank() != s.input.rank() + 1 ||
      x.shape().without_batch() != s.input) {
    throw SizeMismatchError(fmt::format("{}: the model takes (batch, {}) tensors; got {}", what,
                                        fmt::join(s.input.dims(), ", "),
                                        x.valid() ? x.shape().to_string() : "an empty tensor"));
  }
}

}  // namespace

Tensor Sequential::forward(const Tensor& x, Mode mode) {
  auto& s = *state_;
  check_batch_shape(s, x, "nn::Sequential::forward");
  const std::size_t batch = x.shape()[0];
  auto& engine = s.ensure_engine();
  auto& plan = engine.plan({batch, mode, false, mode == Mode::Train});
  plan.load_input(x.buffer());
  plan.forward(++s.forward_count);
  if (mode == Mode::Train) s.last_train_plan = &plan;
  return Tensor::from(*s.context, output_shape().with_batch(batch), plan.output());
}

Tensor Sequential::backward(const Tensor& output_gradient) {
  auto& s = *state_;
  if (s.last_train_plan == nullptr) {
    throw Error("nn::Sequential::backward: call forward(x, Mode::Train) first");
  }
  auto& plan = *s.last_train_plan;
  const Shape expected = output_shape().with_batch(plan.batch());
  if (!output_gradient.valid() || output_gradient.shape() != expected) {
    throw SizeMismatchError(fmt::format(
        "nn::Sequential::backward: the last training forward pass gave outputs {}; the gradient "
        "has the shape {}",
        expected.to_string(),
        output_gradient.valid() ? output_gradient.shape().to_string() : "of an empty tensor"));
  }
  plan.load_output_gradient(output_gradient.buffer());
  plan.backward();
  return Tensor::from(*s.context, s.input.with_batch(plan.batch()), plan.input_gradient());
}

std::vector<float> Sequential::gradient_values() const {
  auto& s = *state_;
  if (!s.engine) return std::vector<float>(s.total, 0.0f);
  return s.engine->download_gradients();
}

std::vector<int> Sequential::classify(const Tensor& x) {
  const Tensor y = forward(x, Mode::Eval);
  const auto values = y.to_vector();
  const std::size_t batch = y.shape()[0], width = y.size() / batch;
  std::vector<int> classes(batch);
  for (std::size_t n = 0; n < batch; ++n) {
    const float* row = values.data() + n * width;
    classes[n] = static_cast<int>(std::max_element(row, row + width) - row);
  }
  return classes;
}

const Context& Sequential::context() const {
  return *state_->context;
}

}  // namespace gpgpu::nn
