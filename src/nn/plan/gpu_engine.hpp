// Internal: what the two GPU engines (compute shaders, transform feedback) share — the model
// they serve, the buffer predictions are written to, and handing queued work to the GPU. Each
// keeps its own host copy of the gradients (the compute engine in mapped memory,
// compute/mapped_gradients.hpp); the cpu engine's arrays are host memory already.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
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
  void submit() override { context().flush(); }

 protected:
  const ModelState& model_;
  Buffer predictions_;
};

}  // namespace gpgpu::nn::detail
