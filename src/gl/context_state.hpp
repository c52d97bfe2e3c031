// Internal: what a Context shares with the objects made from it.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "gl/gl.hpp"
#include "gpgpu/context.hpp"

namespace gpgpu::detail {

class Program;

// GL entry points that are extensions and so come from eglGetProcAddress, not the library.
struct ExtensionFunctions {
  PFNGLBUFFERSTORAGEEXTPROC buffer_storage = nullptr;
  PFNGLQUERYCOUNTEREXTPROC query_counter = nullptr;
  PFNGLGETQUERYOBJECTUI64VEXTPROC get_query_object_ui64v = nullptr;
  PFNGLGETINTEGER64VEXTPROC get_integer64v = nullptr;
};

// Always owned by a shared_ptr (made in Context's constructor), so that programs can hold a
// weak reference to the context whose GL names they carry.
struct ContextState : std::enable_shared_from_this<ContextState> {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface surface = EGL_NO_SURFACE;  // a 1x1 pbuffer where surfaceless contexts are missing
  DeviceInfo info;
  ExtensionFunctions ext;
  bool released = false;

  // Compiled programs keyed by their kind and final source (defines included).
  std::unordered_map<std::string, std::shared_ptr<Program>> programs;
  // Context::attachment's objects. They may hold this state (kernels, Buffers), so Context
  // drops them on destruction to break the cycle; release() destroys them while current.
  std::unordered_map<std::string, std::shared_ptr<void>> attachments;

  ContextState() = default;
  ContextState(const ContextState&) = delete;
  ContextState& operator=(const ContextState&) = delete;
  ~ContextState();

  // Makes the context current on this thread unless it already is. Throws if released.
  void ensure_current() const;
  // Like ensure_current, but never throws; false when the context cannot be made current
  // (released, or current on another thread). For destructors.
  bool try_make_current() const noexcept;
  // Destroys attachments, programs and the EGL context. Idempotent.
  void release() noexcept;
  // Destroys the attachments (moved out first: their destructors may use this state).
  void drop_attachments() noexcept;
};

// Shared EGL display handles are reference counted here: eglTerminate on a display that
// another Context (maybe on another thread) still uses would destroy that context too.
// eglInitialize + count, atomically with respect to release_display. False with `why` set
// when eglInitialize fails.
bool initialize_and_retain_display(EGLDisplay display, std::string& why);
void release_display(EGLDisplay display) noexcept;

}  // namespace gpgpu::detail
