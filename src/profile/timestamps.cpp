// GPU timestamps: whether a context can record them (profile/timestamps.hpp).
#include "profile/timestamps.hpp"

#include "gl/context_state.hpp"
#include "gl/platform.hpp"

namespace gpgpu::detail {

// The extension's own entry point first: some drivers accept GL_TIMESTAMP_EXT only there.
GLint timestamp_bits() {
  GLint bits = 0;
  const auto get_query_ext =
      reinterpret_cast<PFNGLGETQUERYIVEXTPROC>(platform_proc_address("glGetQueryivEXT"));
  if (get_query_ext != nullptr) {
    get_query_ext(GL_TIMESTAMP_EXT, GL_QUERY_COUNTER_BITS_EXT, &bits);
    if (glGetError() == GL_NO_ERROR && bits > 0) return bits;
  }
  bits = 0;
  glGetQueryiv(GL_TIMESTAMP_EXT, GL_QUERY_COUNTER_BITS_EXT, &bits);
  if (glGetError() != GL_NO_ERROR) return 0;
  return bits;
}

const char* timestamps_unusable(const ContextState& state) {
  if (!state.info.has_timer_query() || state.ext.query_counter == nullptr ||
      state.ext.get_query_object_ui64v == nullptr)
    return "this device has no GPU timer queries (GL_EXT_disjoint_timer_query)";
  if (timestamp_bits() == 0)
    return "the device's timer queries cannot record timestamps (GL_QUERY_COUNTER_BITS_EXT is 0 "
           "for GL_TIMESTAMP_EXT)";
  return "";
}

}  // namespace gpgpu::detail
