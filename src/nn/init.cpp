// Parameter initialisation: He (normal) and Xavier (uniform) from a SplitMix64 stream per
// parameter array, so that the values depend only on the seed and the architecture.
#include <cmath>
#include <numbers>

#include "model_state.hpp"

namespace gpgpu::nn::detail {

namespace {

class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1): 53 random bits, never exactly 0.
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  // Standard normal by Box-Muller (one value per pair of uniforms, for simplicity).
  double normal() {
    return std::sqrt(-2.0 * std::log(uniform())) * std::cos(2.0 * std::numbers::pi * uniform());
  }

 private:
  std::uint64_t state_;
};

bool next_is_relu(const ModelState& model, std::size_t layer) {
  for (std::size_t i = layer + 1; i < model.layers.size(); ++i) {
    const Layer& l = model.layers[i];
    if (std::holds_alternative<ReLU>(l) || std::holds_alternative<LeakyReLU>(l) ||
        std::holds_alternative<Clip>(l)) {
      return true;
    }
    if (!std::holds_alternative<BatchNorm>(l)) return false;
  }
  return false;
}

// fan_in, fan_out and the Init setting of a weight's layer.
struct Fans {
  double in = 1, out = 1;
  Init init = Init::Auto;
};

Fans fans_of(const ModelState& model, std::size_t layer) {
  const Shape in = layer == 0 ? model.input : model.shapes[layer - 1];
  if (const auto* d = std::get_if<Dense>(&model.layers[layer])) {
    return {static_cast<double>(in[0]), static_cast<double>(d->units), d->init};
  }
  const auto& c = std::get<Conv2D>(model.layers[layer]);
  const double area = static_cast<double>(c.kernel * c.kernel);
  return {static_cast<double>(in[0]) * area, static_cast<double>(c.filters) * area, c.init};
}

}  // namespace

std::vector<float> initial_values(const ModelState& model, std::uint64_t seed) {
  std::vector<float> values(model.total, 0.0f);
  for (std::size_t p = 0; p < model.params.size(); ++p) {
    const auto& info = model.params[p];
    float* out = values.data() + info.offset;
    const std::size_t count = info.shape.size();
    if (info.name == "gamma" || info.name == "running_var") {
      std::fill(out, out + count, 1.0f);
      continue;
    }
    if (info.name != "weight") continue;  // biases, beta, running_mean: zero
    const Fans fans = fans_of(model, info.layer);
    Init init = fans.init;
    if (init == Init::Auto) init = next_is_relu(model, info.layer) ? Init::He : Init::Xavier;
    Random random(seed * 0x9E3779B97F4A7C15ull + p + 1);
    if (init == Init::He) {
      const double stddev = std::sqrt(2.0 / fans.in);
      for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<float>(stddev * random.normal());
    } else {
      const double limit = std::sqrt(6.0 / (fans.in + fans.out));
      for (std::size_t i = 0; i < count; ++i) {
        out[i] = static_cast<float>(limit * (2.0 * random.uniform() - 1.0));
      }
    }
  }
  return values;
}

}  // namespace gpgpu::nn::detail
