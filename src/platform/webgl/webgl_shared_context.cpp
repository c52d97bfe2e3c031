// The WebGL2 platform's second contexts (gl/platform.hpp): there are none. A WebGL2 context
// belongs to one canvas and the page runs on one thread, so the transfer engine's copy lanes
// are refused by name (resolve_data_path turns DataPathOptions::copy_context = 1 away first).
#include "gl/context_state.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::detail {

struct SharedContext {};

void SharedContextDeleter::operator()(SharedContext* shared) const noexcept {
  delete shared;
}

SharedContextHandle make_shared_context(const ContextState& state) {
  refuse_without(false, state, "a second context (DataPathOptions::copy_context)",
                 "a WebGL2 context belongs to one canvas and the page has one thread");
  return nullptr;
}

bool make_shared_current(SharedContext&) noexcept {
  return false;
}

void release_shared_current(SharedContext&) noexcept {}

}  // namespace gpgpu::detail
