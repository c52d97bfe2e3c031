// Optimizer settings and learning-rate schedules (the update kernels are in the backends).
#include "gpgpu/nn/optimizers.hpp"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

namespace gpgpu::nn {

float learning_rate(const Optimizer& optimizer) {
  return std::visit([](const auto& o) { return o.learning_rate; }, optimizer);
}

Optimizer with_learning_rate(Optimizer optimizer, float learning_rate) {
  std::visit([&](auto& o) { o.learning_rate = learning_rate; }, optimizer);
  return optimizer;
}

std::string describe(const Optimizer& optimizer) {
  if (const auto* s = std::get_if<SGD>(&optimizer)) {
    return fmt::format("sgd (lr {}, momentum {}, weight decay {})", s->learning_rate, s->momentum,
                       s->weight_decay);
  }
  const auto& a = std::get<Adam>(optimizer);
  return fmt::format("adam (lr {}, betas {} {}, eps {}, weight decay {})", a.learning_rate, a.beta1,
                     a.beta2, a.epsilon, a.weight_decay);
}

std::optional<Schedule> parse_schedule(std::string_view name) {
  if (name == "constant") return Schedule::Constant;
  if (name == "cosine") return Schedule::Cosine;
  if (name == "step") return Schedule::Step;
  return std::nullopt;
}

std::string_view to_string(Schedule schedule) {
  switch (schedule) {
    case Schedule::Constant:
      return "constant";
    case Schedule::Cosine:
      return "cosine";
    case Schedule::Step:
      return "step";
  }
  return "?";
}

float scheduled_learning_rate(float base, Schedule schedule, std::size_t epoch, std::size_t epochs,
                              std::size_t step_epochs) {
  switch (schedule) {
    case Schedule::Constant:
      return base;
    case Schedule::Cosine: {
      if (epochs == 0) return base;
      const double t = static_cast<double>(std::min(epoch, epochs)) / static_cast<double>(epochs);
      return static_cast<float>(base * 0.5 * (1.0 + std::cos(std::numbers::pi * t)));
    }
    case Schedule::Step:
      return static_cast<float>(
          base * std::pow(0.1, static_cast<double>(epoch / std::max<std::size_t>(step_epochs, 1))));
  }
  return base;
}

}  // namespace gpgpu::nn
