#include "gl/gpu_timer.hpp"

namespace gpgpu::detail {

GpuTimer::GpuTimer(const ContextState& state, bool enabled) : state_(state) {
  if (!enabled || state.ext.get_query_object_ui64v == nullptr) return;
  GL(glGenQueries(1, &query_));
  GLint disjoint = 0;
  glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);  // reading clears the disjoint flag
  check_gl("glGetIntegerv(GL_GPU_DISJOINT_EXT)");
  GL(glBeginQuery(GL_TIME_ELAPSED_EXT, query_));
  running_ = true;
}

GpuTimer::~GpuTimer() {
  if (running_) glEndQuery(GL_TIME_ELAPSED_EXT);
  if (query_ != 0) glDeleteQueries(1, &query_);
  glGetError();
}

double GpuTimer::stop() {
  if (!running_) return -1;
  running_ = false;
  GL(glEndQuery(GL_TIME_ELAPSED_EXT));
  GLuint64 ns = 0;
  state_.ext.get_query_object_ui64v(query_, GL_QUERY_RESULT, &ns);  // waits for the GPU
  check_gl("glGetQueryObjectui64vEXT");
  GLint disjoint = 0;
  GL(glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint));
  return disjoint ? -1.0 : static_cast<double>(ns);
}

}  // namespace gpgpu::detail
