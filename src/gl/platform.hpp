// Internal: the one seam between gpgpu's core and the platform its GL context lives on.
//
// Two platforms implement it, and CMake compiles exactly one (src/platform/CMakeLists.txt):
//   egl/    native OpenGL ES 3.1+ through EGL (NVIDIA, Mesa, llvmpipe): the default build;
//   webgl/  WebGL2 in a browser, through Emscripten (emcmake): OpenGL ES 3.0 semantics.
// What differs between them is declared here and nowhere else:
//   how a Context is made   make_context_state, list_devices and ContextState's members that
//                           make it current, test it and destroy it (context_state.hpp);
//   how a buffer is read    read_gl_buffer (gl_buffer.hpp): a mapping natively,
//                           glGetBufferSubData in WebGL2, where buffers cannot be mapped;
//   how waits happen        GlFence (gl_fence.hpp) and the thread fences below: fence syncs
//                           natively; in WebGL2 a fence never signals while the program keeps
//                           control, so waiting there is glFinish;
//   second contexts         make_shared_context below (the transfer engine's copy lanes):
//                           EGL makes one in the Context's share group; WebGL2 refuses;
//   large buffers' memory   open_buffer_memory below (gl/buffer_memory.hpp): natively,
//                           memory Vulkan allocates on the same GPU, imported into GL;
//                           WebGL2 has none.
// The core reads PlatformTraits to choose its path at run time (no #ifdef), and refuses with
// UnsupportedError what a platform cannot do (refuse_without below).
#pragma once

#include <memory>
#include <string>

#include "gl/gl.hpp"

namespace gpgpu {
struct ContextOptions;
}

namespace gpgpu::detail {

struct ContextState;

// What the platform's context can do; filled by make_context_state.
struct PlatformTraits {
  std::string name;  // "EGL" or "WebGL2"
  // OpenGL ES 3.1: compute shaders, storage buffers, images, program-interface queries,
  // separable programs and framebuffers without attachments. WebGL2 is OpenGL ES 3.0.
  bool gles31 = true;
  // glMapBufferRange (the transfer engine's staging, HostBuffer, TransferQueue).
  bool mapped_buffers = true;
  // A query's result (a capture count, a timer) can be waited for inside a call. In WebGL2
  // results become available only after the page has returned to the browser.
  bool waitable_queries = true;
  // Fences another thread can wait for (EGL 1.5 eglCreateSync): the delivery thread.
  bool thread_fences = false;
  // Program binaries (glGetProgramBinary) can be saved and loaded again; WebGL2 has none.
  bool program_binaries = true;
  // Threads may be started (std::thread). A WebGL2 build runs on the page's one thread.
  bool threads = true;
  // A second context sharing the Context's objects can be made for another thread
  // (make_shared_context). WebGL2 has one context per canvas and no threads.
  bool shared_contexts = false;
};

// Throws UnsupportedError naming `what` and the platform's limit `because` unless `supported`.
void refuse_without(bool supported, const ContextState& state, const char* what,
                    const char* because);

// Makes the platform's context for `options` (the device choice natively, a WebGL2 context
// on a canvas of its own in the browser), current on this thread, with its info and traits
// read. Throws ContextError saying why not.
std::shared_ptr<ContextState> make_context_state(const ContextOptions& options);

// A GL entry point by name (eglGetProcAddress natively); null where the platform has none.
void* platform_proc_address(const char* name);

// Where large Buffers' memory comes from, for `state`'s current context; null with `why` where
// the platform or the device has no such source.
class BufferMemory;
std::unique_ptr<BufferMemory> open_buffer_memory(const ContextState& state, std::string& why);

// A fence that a thread without the context can wait for (the transfer engine's delivery
// thread). Only where PlatformTraits::thread_fences; elsewhere insert throws UnsupportedError.
using ThreadFence = void*;
ThreadFence insert_thread_fence(const ContextState& state);
// Blocks until the fence signals; false when the wait failed (the device was lost).
bool wait_thread_fence(const ContextState& state, ThreadFence fence) noexcept;
void delete_thread_fence(const ContextState& state, ThreadFence fence) noexcept;

// A second context in `state`'s share group (buffers and sync objects shared), for a thread of
// its own: the transfer engine's copy lanes (transfer/copy_lane.hpp). Made with the Context's
// config, version and reset strategy. Only where PlatformTraits::shared_contexts; elsewhere
// UnsupportedError; ContextError where the platform refuses one. `state` stays current.
struct SharedContext;  // the platform's handles
struct SharedContextDeleter {
  void operator()(SharedContext* shared) const noexcept;
};
using SharedContextHandle = std::unique_ptr<SharedContext, SharedContextDeleter>;
SharedContextHandle make_shared_context(const ContextState& state);
// Makes `shared` current on the calling thread (one thread only, for its whole life); false
// when the platform refuses.
bool make_shared_current(SharedContext& shared) noexcept;
// Unbinds `shared` from the calling thread, releasing the thread's platform state.
void release_shared_current(SharedContext& shared) noexcept;

}  // namespace gpgpu::detail
