// The shared part of every backend's Plan (staged_plan.hpp).
#include "plan/staged_plan.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "model_state.hpp"

namespace gpgpu::nn::detail {

StagedPlan::StagedPlan(const ModelState& model, const PlanKey& key, const char* backend)
    : model_(model),
      plan_(make_stage_plan(model, key)),
      timer_(*model.context, fmt::format("{} plan, batch {}, {}", backend, key.batch,
                                         key.mode == Mode::Train ? "training" : "evaluation")) {}

void StagedPlan::set_kernels(std::vector<std::unique_ptr<StageKernels>> kernels) {
  kernels_ = std::move(kernels);
}

void StagedPlan::forward(std::uint32_t seed) {
  for (std::size_t i = 0; i < kernels_.size(); ++i) {
    if (kernels_[i]) {
      timer_.time(plan_.stages[i].name() + " forward", [&] { kernels_[i]->forward(seed); });
    }
  }
}

void StagedPlan::backward(const std::function<void(std::size_t layer)>& layer_done) {
  if (!plan_.train()) throw Error("nn: backward() needs a plan made in Train mode");
  for (std::size_t i = kernels_.size(); i-- > 0;) {
    if (kernels_[i]) {
      timer_.time(plan_.stages[i].name() + " backward", [&] { kernels_[i]->backward(); });
      if (layer_done) layer_done(plan_.stages[i].layer);
    }
  }
}

void StagedPlan::check_input(std::size_t values) const {
  if (values != plan_.values(0)) {
    throw SizeMismatchError(
        fmt::format("nn: input of {} values for a plan of {}", values, plan_.values(0)));
  }
}

void StagedPlan::check_gather(const DataFeed& feed, std::size_t first, std::size_t valid) const {
  const Shape& in = plan_.input;
  if (in.rank() != 3 || feed.data().sample_shape() != in) {
    throw ArgumentError(fmt::format("nn: the data's samples are {} but the model takes {}",
                                    feed.data().sample_shape().to_string(), in.to_string()));
  }
  if (valid == 0 || first + valid > feed.count()) {
    throw ArgumentError(fmt::format("nn: batch [{}, {}) outside the data's {} samples", first,
                                    first + valid, feed.count()));
  }
}

void StagedPlan::check_loss(bool gradient) const {
  if (plan_.output.rank() != 1) {
    throw ArgumentError(
        fmt::format("nn: the loss needs (batch, classes) outputs; the model gives {}",
                    plan_.output.with_batch(batch()).to_string()));
  }
  if (gradient && !plan_.train()) throw Error("nn: loss gradients need a Train plan");
}

void StagedPlan::check_output_gradient(std::size_t values) const {
  if (!plan_.train()) throw Error("nn: output gradients need a Train plan");
  const std::size_t expected = plan_.values(plan_.output_slot);
  if (values != expected) {
    throw SizeMismatchError(
        fmt::format("nn: output gradient of {} values for outputs of {}", values, expected));
  }
}

void StagedPlan::check_input_gradient() const {
  if (!plan_.key.input_gradient) throw Error("nn: this plan computes no input gradient");
}

}  // namespace gpgpu::nn::detail
