#include "transfer/engine_source.hpp"

#include "gl/context_state.hpp"

namespace gpgpu::detail {

void EngineSource::wait(std::uint64_t id) {
  state_->ensure_current();  // throws once the Context is released
  state_->engine().wait(id);
}

bool EngineSource::ready(std::uint64_t id) {
  state_->ensure_current();
  return state_->engine().ready(id);
}

void EngineSource::wait_quietly(std::uint64_t id) noexcept {
  if (!state_->has_engine() || !state_->try_make_current()) return;
  try {
    state_->engine().wait(id);
  } catch (...) {
    // Destructors must not throw; wait() reports errors to callers who want them.
  }
}

}  // namespace gpgpu::detail
