// gpgpu/nn/optimizers.hpp — how parameters follow their gradients.
//
//   gpgpu::nn::TrainOptions options;
//   options.optimizer = gpgpu::nn::SGD{.learning_rate = 0.05f, .momentum = 0.9f};
//   options.optimizer = gpgpu::nn::Adam{.learning_rate = 1e-3f, .weight_decay = 5e-4f};
//
// One update runs over all trainable parameters at once (they sit in one flat device array
// on the compute backend), after every batch. With gradient g of the batch-mean loss,
// weight decay wd and learning rate lr (the schedule's value for this epoch):
//   SGD   g' = g + wd w;  v = momentum v + g';  w -= lr v            (PyTorch's SGD; v starts 0)
//   Adam  g' = g + wd w;  m = b1 m + (1 - b1) g';  v = b2 v + (1 - b2) g'^2;
//         w -= lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)    (PyTorch's Adam, t = step)
// Weight decay applies to every trainable parameter (biases and BatchNorm's too), as in
// PyTorch's optimizers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace gpgpu::nn {

// Stochastic gradient descent with optional momentum and L2 weight decay.
struct SGD {
  float learning_rate = 0.01f;  // the base rate (Schedule scales it per epoch)
  float momentum = 0.0f;        // 0: plain SGD
  float weight_decay = 0.0f;    // L2 penalty added to the gradient
};

// Adam (Kingma and Ba), with optional L2 weight decay added to the gradient.
struct Adam {
  float learning_rate = 1e-3f;  // the base rate (Schedule scales it per epoch)
  float beta1 = 0.9f;           // decay of the first-moment estimate
  float beta2 = 0.999f;         // decay of the second-moment estimate
  float epsilon = 1e-8f;        // added to the denominator
  float weight_decay = 0.0f;    // L2 penalty added to the gradient
};

// Either optimizer.
using Optimizer = std::variant<SGD, Adam>;

// @{
// The base learning rate of either optimizer, and a copy with another one.
float learning_rate(const Optimizer& optimizer);
Optimizer with_learning_rate(Optimizer optimizer, float learning_rate);
// @}
// "sgd (lr 0.01, momentum 0.9, weight decay 0)".
std::string describe(const Optimizer& optimizer);

// The learning rate over the epochs of a run:
//   Constant  lr
//   Cosine    lr (1 + cos(pi e / E)) / 2 for epoch e = 0 .. E-1 of E
//   Step      lr 0.1^floor(e / step_epochs)
enum class Schedule { Constant, Cosine, Step };
std::optional<Schedule> parse_schedule(std::string_view name);  // "constant", "cosine", "step"
std::string_view to_string(Schedule schedule);  // "constant", "cosine", "step"
// The learning rate of epoch `epoch` of `epochs` for a base rate `base` (above).
float scheduled_learning_rate(float base, Schedule schedule, std::size_t epoch, std::size_t epochs,
                              std::size_t step_epochs = 10);

}  // namespace gpgpu::nn
