// Internal: what the two GPU engines (compute shaders, transform feedback) share — the model
// they serve, the buffer predictions are written to, and the host copy of the gradients that
// stage_gradients() fills for a caller (the MPI reduction) to read or change. The cpu engine
// needs none of it: its arrays are host memory already.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "model_state.hpp"
#include "plan/engine.hpp"

namespace gpgpu::nn::detail {

class GpuEngine : public Engine {
 public:
  explicit GpuEngine(const ModelState& model) : model_(model) {}

  const ModelState& model() const { return model_; }
  const Context& context() const { return *model_.context; }
  Buffer& predictions() { return predictions_; }

  void begin_predictions(std::size_t count) override {
    predictions_ = Buffer(context(), ElementType::Int32, std::max<std::size_t>(count, 1));
  }
  std::vector<int> read_predictions() override { return predictions_.to_vector<int>(); }
  void begin_gradient_staging() override {
    staging_.resize(model_.trainable);
    staged_from_ = model_.trainable;
    committed_.clear();
  }
  void submit() override { context().flush(); }
  std::span<float> gradient_array() override { return staging_; }

 protected:
  const ModelState& model_;
  Buffer predictions_;
  std::vector<float> staging_;   // the trainable parameters' gradients, flat
  std::size_t staged_from_ = 0;  // [staged_from_, trainable) is current in staging_
  std::vector<std::pair<std::size_t, std::size_t>> committed_;  // ranges handed back early
};

}  // namespace gpgpu::nn::detail
