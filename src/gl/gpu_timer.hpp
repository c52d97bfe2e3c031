// Internal: timing one stretch of GPU work with a GL_TIME_ELAPSED query.
#pragma once

#include "gl/context_state.hpp"

namespace gpgpu::detail {

// Starts a GL_TIME_ELAPSED_EXT query if `enabled` and the device has timer queries.
// stop() ends it and returns the GPU nanoseconds, or -1 when there is no timer or a
// disjoint event (clock change, context switch) made the measurement meaningless.
class GpuTimer {
 public:
  GpuTimer(const ContextState& state, bool enabled);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;
  double stop();

 private:
  const ContextState& state_;
  GLuint query_ = 0;
  bool running_ = false;
};

}  // namespace gpgpu::detail
