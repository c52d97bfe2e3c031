// Internal: the part of a Plan every backend shares. It holds the StagePlan, checks each
// call's arguments against it (sizes, ranges, modes: the messages are the same whichever
// backend runs), runs the stages' kernels forward and in reverse, and times them under
// GPGPU_NN_PROFILE. A backend derives from it and supplies its arrays, the data movements
// (input, gather, loss, output gradient) and one StageKernels per stage.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpgpu/context.hpp"
#include "plan/engine.hpp"
#include "plan/stage_plan.hpp"
#include "stage_timer.hpp"

namespace gpgpu::nn::detail {

struct ModelState;

// One stage's kernels on a backend, bound to its arrays when the plan is made.
class StageKernels {
 public:
  virtual ~StageKernels() = default;
  // Writes the stage's output (after its fused activation) from its input.
  virtual void forward(std::uint32_t seed) = 0;
  // From dL/d(output before the fused activation): the parameter gradients, and dL/d(input)
  // times the derivative of the input's activation where the plan has an input gradient.
  virtual void backward() = 0;
};

class StagedPlan : public Plan {
 public:
  std::size_t batch() const override { return plan_.key.batch; }
  void forward(std::uint32_t seed) override;
  using Plan::backward;
  void backward(const std::function<void(std::size_t layer)>& layer_done) override;

 protected:
  StagedPlan(const ModelState& model, const PlanKey& key, const char* backend);

  // Made by the derived constructor once its arrays exist: one entry per stage (null for
  // aliases).
  void set_kernels(std::vector<std::unique_ptr<StageKernels>> kernels);
  // The argument checks (each throws the error the public API documents).
  void check_input(std::size_t values) const;
  void check_gather(const DataFeed& feed, std::size_t first, std::size_t valid) const;
  void check_loss(bool gradient) const;
  void check_output_gradient(std::size_t values) const;
  void check_input_gradient() const;

  const StagePlan& plan() const { return plan_; }
  const ModelState& model() const { return model_; }
  StageTimer& timer() { return timer_; }
  const StageTimer& timer() const { return timer_; }

 private:
  const ModelState& model_;
  StagePlan plan_;
  StageTimer timer_;
  std::vector<std::unique_ptr<StageKernels>> kernels_;
};

}  // namespace gpgpu::nn::detail
