// Internal: what a Context shares with the objects made from it.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "gl/buffer_memory.hpp"
#include "gl/gl.hpp"
#include "gl/platform.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/data_path.hpp"
#include "shader/program_cache.hpp"

namespace gpgpu::detail {

class TransferEngine;
class ProgramBinaryCache;
class DispatchSink;
struct ProgramRequest;

// GL entry points that are extensions and so come from the platform (eglGetProcAddress), not
// the library.
struct ExtensionFunctions {
  PFNGLBUFFERSTORAGEEXTPROC buffer_storage = nullptr;
  PFNGLQUERYCOUNTEREXTPROC query_counter = nullptr;
  PFNGLGETQUERYOBJECTUI64VEXTPROC get_query_object_ui64v = nullptr;
  PFNGLGETGRAPHICSRESETSTATUSPROC get_graphics_reset_status = nullptr;
  // GL_KHR_parallel_shader_compile: null without it.
  PFNGLMAXSHADERCOMPILERTHREADSKHRPROC max_shader_compiler_threads = nullptr;
};

// The platform's own handles (the EGL display, context and surface; the WebGL2 context),
// defined by the platform's files (gl/platform.hpp).
struct NativeContext;
struct NativeContextDeleter {
  void operator()(NativeContext* native) const noexcept;
};

// Always owned by a shared_ptr (made in Context's constructor), so that programs can hold a
// weak reference to the context whose GL names they carry.
struct ContextState : std::enable_shared_from_this<ContextState> {
  std::unique_ptr<NativeContext, NativeContextDeleter> native;
  PlatformTraits platform;  // what the platform can do
  DeviceInfo info;
  ExtensionFunctions ext;
  bool released = false;
  // Why the context can no longer be used (a GPU reset, a kernel past the timeout); empty
  // while it is healthy.
  std::string lost_reason;
  // ContextOptions::debug: a debug context (its GL calls are all checked one by one).
  bool debug = false;
  // ContextOptions::timeout; zero: runs are not timed.
  std::chrono::nanoseconds timeout{0};
  DataPathOptions data_path;  // as given; the engine resolves what is left to "auto"

  // Compiled programs keyed by their kind and final source (defines included).
  ProgramCache programs;
  // Linked programs on disk, shared with later processes (shader/program_binary_cache.hpp).
  std::unique_ptr<ProgramBinaryCache> binaries;
  ProgramCounts program_counts;
  // glMaxShaderCompilerThreadsKHR was raised for batches of compiles (shader/program_batch).
  bool compiler_threads_raised = false;
  // Open CompileBatches (gpgpu/compute_kernel.hpp) and the programs their kernels noted.
  int compile_batches = 0;
  std::vector<ProgramRequest> batched_programs;
  // Context::attachment's objects. They may hold this state (kernels, Buffers), so Context
  // drops them on destruction to break the cycle; release() destroys them while current.
  std::unordered_map<std::string, std::shared_ptr<void>> attachments;
  // Buffer textures through which gpgpu::texels(buffer) is read, one per texture unit used;
  // attached to a Buffer for one run only (texture_binding.cpp).
  std::vector<unsigned> buffer_views;
  std::vector<bool> buffer_view_attached;
  // While a Sequence captures (gpgpu/sequence.hpp): where ComputeKernel runs are recorded
  // instead of run (kernels/dispatch_record.hpp). Null otherwise.
  DispatchSink* capture = nullptr;
  // Large Buffers' memory (gl/buffer_memory.hpp): Buffers of at least imported_buffer_bytes
  // (0: none) take it from buffer_memory, opened by the first of them (buffer_memory_tried);
  // it stays null where it cannot be opened, for the reason in buffer_memory_why.
  std::size_t imported_buffer_bytes = 0;
  std::unique_ptr<BufferMemory> buffer_memory;
  bool buffer_memory_tried = false;
  std::string buffer_memory_why;

  ContextState();  // out of line: ProgramBinaryCache is incomplete here
  ContextState(const ContextState&) = delete;
  ContextState& operator=(const ContextState&) = delete;
  ~ContextState();

  // Makes the context current on this thread unless it already is. Throws if released or
  // lost, or ContextError when another thread has it current. (Defined by the platform.)
  void ensure_current() const;
  // Throws if the Context was released or lost (every platform's ensure_current first).
  void throw_if_unusable() const;
  // Whether this context is the one current on this thread.
  bool is_current() const noexcept;
  // Like ensure_current, but never throws; false when the context cannot be made current
  // (released, lost, or current on another thread). For destructors.
  bool try_make_current() const noexcept;
  // Makes no context current on this thread if this one is (so another thread may take it).
  void release_from_this_thread() const noexcept;
  // Destroys attachments, the transfer engine, programs and the platform's context.
  // Idempotent.
  void release() noexcept;
  // The platform's part of release(): its context and handles.
  void release_native() noexcept;
  // Destroys the attachments (moved out first: their destructors may use this state).
  void drop_attachments() noexcept;

  // With a timeout: waits for the work submitted so far to finish, at most until `started`
  // plus the timeout, and throws TimeoutError (marking the context lost if the work may
  // still be running) when it does not. `what` names the run for the message.
  void wait_within_timeout(std::chrono::steady_clock::time_point started, const std::string& what);
  // Throws UnsupportedError while a Sequence captures: `what` (a transfer, another kernel
  // path) would run at once, out of order with the dispatches being recorded.
  void refuse_while_capturing(const char* what) const;
  // The transfer engine every host array goes through (made on first use; the context
  // must be current).
  TransferEngine& engine();
  // The same, for code that has made this context current already (a run, a replay, a
  // binding helper): without ensure_current's eglGetCurrentContext, a call into the driver
  // that cost about a microsecond per use on NVIDIA's (H200, 580.159) where a replay marked
  // every block of every dispatch.
  TransferEngine& engine_while_current();
  bool has_engine() const noexcept { return engine_ != nullptr; }

 private:
  std::unique_ptr<TransferEngine> engine_;
};

// Remembers, per thread, the context gpgpu made current there, and releases it when the
// thread ends, so that a Context whose thread has exited can be used by another.
void note_current_on_this_thread(const std::shared_ptr<const ContextState>& state);

// What every platform does once its context is current and its info read: extension entry
// points, the data path, debug output, the loop probe, the timeout and the program cache.
void finish_context_setup(ContextState& state, const ContextOptions& options);

}  // namespace gpgpu::detail
