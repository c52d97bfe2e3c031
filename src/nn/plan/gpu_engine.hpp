// Internal: what the two GPU engines (compute shaders, transform feedback) share — the model
// they serve, the buffer predictions are written to, and handing queued work to the GPU. Each
// keeps its own host copy of the gradients (the compute engine in mapped memory,
// compute/mapped_gradients.hpp); the cpu engine's arrays are host memory already.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/host_buffer.hpp"
#include "gpgpu/pending_transfer.hpp"
#include "gpgpu/transfer_queue.hpp"
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
    const std::size_t size = std::max<std::size_t>(count, 1);
    if (!predictions_.valid() || predictions_.size() != size) {
      predictions_ = Buffer(context(), ElementType::Int32, size);
    }
  }
  std::vector<int> read_predictions() override { return predictions_.to_vector<int>(); }
  void submit() override { context().flush(); }
  // A GPU copy of the two accumulators into host memory, fenced: the host waits for it only
  // in take_accumulators(), when later work keeps the GPU busy (a synchronous read every few
  // training steps left the GPU idle while the host queued the next step: 0.3 ms at batch
  // 512 on an H200).
  void request_accumulators() override {
    if (!accumulator_read_) accumulator_read_.emplace(context());
    auto& r = *accumulator_read_;
    r.copy = r.queue.copy(accumulator_buffer(), r.host);
    r.requested = true;
  }
  std::pair<double, double> take_accumulators() override {
    if (!accumulator_read_ || !accumulator_read_->requested) return read_accumulators();
    auto& r = *accumulator_read_;
    r.requested = false;
    r.copy.wait();
    const auto v = r.host.span<float>();
    return {v[0], v[1]};
  }

 protected:
  // The two floats Plan::loss adds to: loss sum and correct count.
  virtual Buffer& accumulator_buffer() = 0;

  const ModelState& model_;
  Buffer predictions_;

 private:
  struct AccumulatorRead {
    explicit AccumulatorRead(const Context& ctx)
        : host(ctx, ElementType::Float32, 2, HostAccess::Read), queue(ctx) {}
    HostBuffer host;
    TransferQueue queue;
    PendingTransfer copy;
    bool requested = false;  // a copy not yet taken
  };
  std::optional<AccumulatorRead> accumulator_read_;
};

}  // namespace gpgpu::nn::detail
