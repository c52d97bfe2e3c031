// Internal: a second GL context in a Context's share group, for a thread of its own.
//
// The transfer engine issues buffer copies from such a context (transfer/copy_lane.hpp) so that
// the driver may run them beside the dispatches of the Context's own context: commands of one
// GL context execute in order, those of two contexts only where fences order them. Buffers and
// sync objects are shared within the group, so a copy in one context can wait for a fence of
// the other (glWaitSync) and the other way round.
//
// EGL only: this file is the platform-specific part (a WebGL2 page has one context per canvas
// and no threads; there make_shared_context is never asked, see resolve_data_path).
#pragma once

#include <memory>
#include <string>

#include "gl/gl.hpp"

namespace gpgpu::detail {

struct ContextState;

class SharedContext {
 public:
  ~SharedContext();
  SharedContext(const SharedContext&) = delete;
  SharedContext& operator=(const SharedContext&) = delete;

  // Makes it current on the calling thread (one thread only, for its whole life); false when
  // EGL refuses.
  bool make_current() noexcept;
  // Unbinds it from the calling thread and releases the thread's EGL state.
  void release_current() noexcept;
  EGLDisplay display() const noexcept { return display_; }

 private:
  friend std::unique_ptr<SharedContext> make_shared_context(const ContextState&, std::string&);
  SharedContext() = default;
  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLContext context_ = EGL_NO_CONTEXT;
  EGLSurface surface_ = EGL_NO_SURFACE;
};

// A context sharing `main`'s objects, made with `main`'s config, version and reset strategy
// (EGL requires the strategy to match); null with `why` set where EGL refuses one. The call
// may be made on any thread; `main` stays current where it was.
std::unique_ptr<SharedContext> make_shared_context(const ContextState& main, std::string& why);

}  // namespace gpgpu::detail
