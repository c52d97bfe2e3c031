#include "gl/gpu_timer.hpp"

namespace gpgpu::detail {

GpuTimer::GpuTimer(const ContextState& state, bool enabled) : state_(state) {
  refuse_without(!enabled || state.platform.waitable_queries, state, "GPU timing (set_timing)",
                 "WebGL2 answers timer queries only after the page has returned to the browser, "
                 "so a run cannot wait for its own time; time runs with performance.now() "
                 "around the call");
  if (!enabled || state.ext.get_query_object_ui64v == nullptr) return;
  // Owned by query_ from here on: if a call below throws, its destructor deletes the query
  // (the constructor throwing means ~GpuTimer never runs).
  GLuint query = 0;
  GL(glGenQueries(1, &query));
  query_ = GlQuery(nullptr, query);  // deleted in the current context
  GLint disjoint = 0;
  glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);  // reading clears the disjoint flag
  check_gl("glGetIntegerv(GL_GPU_DISJOINT_EXT)");
  GL(glBeginQuery(GL_TIME_ELAPSED_EXT, query_.id()));
  running_ = true;
}

GpuTimer::~GpuTimer() {
  if (running_) {
    glEndQuery(GL_TIME_ELAPSED_EXT);
    glGetError();
  }
}

double GpuTimer::stop() {
  if (!running_) return -1;
  running_ = false;
  GL(glEndQuery(GL_TIME_ELAPSED_EXT));
  GLuint64 ns = 0;
  state_.ext.get_query_object_ui64v(query_.id(), GL_QUERY_RESULT, &ns);  // waits for the GPU
  check_gl("glGetQueryObjectui64vEXT");
  GLint disjoint = 0;
  GL(glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint));
  return disjoint ? -1.0 : static_cast<double>(ns);
}

}  // namespace gpgpu::detail
