// gpgpu/context.hpp — a headless OpenGL ES 3.1+ context on a GPU or on Mesa's llvmpipe.
//
// A Context owns one EGL display connection and one GLES context. Everything made from it
// (buffers, kernels, textures) belongs to it. It serves one thread at a time: each call
// makes it current on the calling thread, where it stays until that thread calls
// make_not_current() or ends; then any other thread may use it. Several Contexts, one per
// thread, run at once.
//
//   gpgpu::Context ctx;                        // GPGPU_DEVICE or "auto": a GPU if there is one
//   gpgpu::Context cpu({.device = "llvmpipe"}); // Mesa's software rasterizer
//   std::cout << ctx.info().renderer;
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "gpgpu/data_path.hpp"

namespace gpgpu {

namespace detail {
struct ContextState;
}

// What gpgpu found on one EGL device, before a context is made on it.
struct DeviceDescription {
  int index = 0;     // position in list_devices(), accepted by ContextOptions::device
  std::string kind;  // "gpu" (hardware), "software" (llvmpipe), "surfaceless" (Mesa platform)
  std::string egl_extensions;  // the device's own EGL extension string (empty for surfaceless)
  std::string drm_file;        // /dev/dri/... where EGL_EXT_device_drm tells it
  int cuda_device = -1;        // CUDA ordinal where EGL_NV_device_cuda tells it
};

// Lists the EGL devices (and the Mesa surfaceless platform, if present) in the order that
// ContextOptions::device indexes them. Never throws for a missing device: returns empty.
std::vector<DeviceDescription> list_devices();

// Capabilities and limits of a context, read once when it is made.
struct DeviceInfo {
  // @{
  // GL_VENDOR, GL_RENDERER, GL_VERSION, GL_SHADING_LANGUAGE_VERSION as the driver reports them.
  std::string vendor, renderer, version, glsl_version;
  // @}
  // @{
  // EGL_VENDOR and EGL_VERSION of the display.
  std::string egl_vendor, egl_version;
  // @}
  std::string device_kind;  // as in DeviceDescription::kind
  int device_index = -1;    // position in list_devices(); -1 for the surfaceless platform
  // @{
  // The OpenGL ES version of the context (3.1 or newer for compute shaders).
  int gl_major = 0, gl_minor = 0;
  // @}
  // The CPU runs the shaders (llvmpipe, softpipe, zink over lavapipe), as the EGL device
  // reports it (EGL_MESA_device_software), unless a probe finds more work groups in flight at
  // once than a CPU driver runs (zink on a GPU's Vulkan driver behind that same EGL device);
  // gpgpu's own kernels take their CPU-tuned shapes.
  bool is_software = false;
  // The device-limit profile the limits below are clamped to (limits.hpp); empty: the
  // driver's own figures.
  std::string limit_profile;

  // @{
  // The driver's limit of the same name (glGetIntegerv(GL_MAX_TEXTURE_SIZE) for
  // max_texture_size, and so on): texels, components or counts; bytes where marked.
  std::int64_t max_texture_size = 0;
  std::int64_t max_3d_texture_size = 0;
  std::int64_t max_array_texture_layers = 0;
  std::int64_t max_texture_buffer_size = 0;        // texels of one buffer texture; 0 without them
  std::int64_t max_shader_storage_block_size = 0;  // bytes
  std::int64_t max_shader_storage_buffer_bindings = 0;
  // Storage blocks one program may use, per stage and in all (OpenGL ES 3.1 guarantees 4
  // in compute shaders and in all, none in vertex and fragment shaders).
  std::int64_t max_compute_shader_storage_blocks = 0;
  std::int64_t max_combined_shader_storage_blocks = 0;
  std::int64_t max_vertex_shader_storage_blocks = 0;
  std::int64_t max_fragment_shader_storage_blocks = 0;
  std::int64_t max_compute_work_group_count[3] = {0, 0, 0};
  std::int64_t max_compute_work_group_size[3] = {0, 0, 0};
  std::int64_t max_compute_work_group_invocations = 0;
  std::int64_t max_compute_shared_memory_size = 0;  // bytes
  std::int64_t max_vertex_attribs = 0;
  std::int64_t max_transform_feedback_interleaved_components = 0;
  std::int64_t max_transform_feedback_separate_attribs = 0;
  std::int64_t max_transform_feedback_separate_components = 0;
  std::int64_t max_draw_buffers = 0;
  std::int64_t max_color_attachments = 0;
  std::int64_t max_renderbuffer_size = 0;
  std::int64_t max_uniform_block_size = 0;
  std::int64_t max_image_units = 0;
  std::int64_t max_compute_image_uniforms = 0;
  std::int64_t max_compute_texture_image_units = 0;
  std::int64_t max_compute_uniform_components = 0;
  std::int64_t max_texture_image_units = 0;
  std::int64_t max_vertex_texture_image_units = 0;
  std::int64_t max_combined_texture_image_units = 0;
  std::int64_t max_viewport_dims[2] = {0, 0};
  // @}
  // Multiprocessors (SMs, compute units) that run compute work groups, where known: GL has
  // no query, so gpgpu recognises common GPUs by their renderer string (GPGPU_COMPUTE_UNITS
  // overrides); the hardware threads on a CPU device; 0 when unknown. Matmul sizes its
  // tiles and split-K by it.
  int compute_units = 0;

  // Shader loops. Mesa's llvmpipe silently ends loops: every loop iteration of one shader
  // invocation takes one from a budget of 65535 shared by all its loops (nesting loops does
  // not help), and the result is then wrong without any error. gpgpu measures this when the
  // Context is made (a tiny kernel, once per device and process); GPUs have no cap.
  // Kernels that loop longer must split the work across dispatches: see
  // ComputeKernel::run_in_passes and docs/reliability.md.
  std::int64_t max_loop_iterations = 0;       // 0: no cap seen in loop_probe_iterations
  bool loop_cap_shared_by_all_loops = false;  // the cap counts all loops of an invocation together
  std::int64_t loop_probe_iterations = 0;     // how far the probe looped
  // On a CPU device: the width of the SIMD vectors in which it runs a work group, one vector
  // after another and each in lockstep, as measured when the Context is made (8 on llvmpipe
  // with AVX2); 0 where the device does not run work groups that way (GPUs are not probed).
  // The primitives emulate subgroups on it for testing (gpgpu/primitives.hpp).
  int lockstep_width = 0;
  // On a CPU device: it runs GL work inside the call that issues it (llvmpipe's compute
  // dispatches), as measured when the Context is made; false where it queues the work (zink
  // over lavapipe) and on GPUs (not probed).
  bool work_completes_in_call = false;
  // Every compute dispatch sees the uniform values set for it, as checked when the Context is
  // made. False flags a driver that reuses a program variant built for earlier values (Mesa
  // zink 22.3 on a CPU device with ZINK_INLINE_UNIFORMS on; docs/portability.md): kernels
  // whose loops or branches test uniforms may then give wrong results.
  bool uniforms_reach_every_dispatch = true;
  // The context was made with a lose-context-on-reset notification strategy
  // (EGL_EXT_create_context_robustness; GL_KHR_robustness / GL_EXT_robustness): a GPU reset
  // is reported as ContextLostError instead of hanging or returning garbage.
  bool reset_notification = false;
  // ContextOptions::robust_buffer_access was asked for and granted.
  bool robust_buffer_access = false;
  // GL_KHR_shader_subgroup, as the driver reports it (all 0 without the extension): the
  // subgroup size (GL_SUBGROUP_SIZE_KHR), the GL_SUBGROUP_FEATURE_*_BIT_KHR bits
  // (GL_SUBGROUP_SUPPORTED_FEATURES_KHR) and whether compute shaders get them
  // (GL_SUBGROUP_SUPPORTED_STAGES_KHR). The primitives' subgroup kernels use these.
  int subgroup_size = 0;
  std::uint32_t subgroup_features = 0;  // GL_SUBGROUP_FEATURE_*_BIT_KHR bits
  bool subgroup_in_compute = false;     // compute shaders get subgroup operations

  std::vector<std::string> extensions;      // GL extensions
  std::vector<std::string> egl_extensions;  // EGL display extensions

  // The context has the GL extension `name` (the whole name, not a substring).
  bool has_extension(const std::string& name) const;
  bool has_timer_query() const;         // GL_EXT_disjoint_timer_query
  bool has_buffer_storage() const;      // GL_EXT_buffer_storage
  bool has_color_buffer_float() const;  // GL_EXT_color_buffer_float: render to R32F/RGBA32F
  // Buffer textures (samplerBuffer, gpgpu::texels): core in OpenGL ES 3.2, else
  // GL_EXT_texture_buffer or GL_OES_texture_buffer.
  bool has_texture_buffers() const;
  // The extension a shader enables for them: "" where they are core (or absent).
  std::string texture_buffer_extension() const;
  // Compute shaders have GL_KHR_shader_subgroup with every feature bit in `features`.
  bool has_subgroup_features(std::uint32_t features) const;
  // OpenGL ES 3.1 or newer: compute shaders (and storage buffers, images). False for WebGL2
  // (OpenGL ES 3.0), where ComputeKernel throws UnsupportedError.
  bool has_compute_shaders() const { return gl_major > 3 || (gl_major == 3 && gl_minor >= 1); }
  // True when a loop of `iterations` (counting every loop of an invocation together where
  // the cap is shared) runs to its end on this device.
  bool loop_runs_to_end(std::int64_t iterations) const {
    return max_loop_iterations == 0 || iterations <= max_loop_iterations;
  }

  // A human-readable multi-line report (what `gpgpu info` prints).
  std::string to_string() const;
};

// How a Context is made: which device, which checks, which caches.
struct ContextOptions {
  // "auto" (or empty): the GPGPU_DEVICE environment variable if set, else the first hardware
  // GPU, else Mesa's software device, else the surfaceless platform.
  // An index ("0", "1", ...) picks from list_devices(); any other word is matched,
  // case-insensitively, against the GL renderer and vendor ("nvidia", "llvmpipe", "intel").
  std::string device = "auto";
  // Ask for a GLES 3.2 context first and fall back to 3.1 (the minimum: compute shaders).
  bool prefer_gles32 = true;
  // Create a debug context: driver debug messages of high severity (and every message of
  // type error) become DriverErrors thrown by the call that caused them; medium-severity
  // messages are printed to stderr.
  bool debug = false;
  // The longest one kernel run (upload, kernel, read-back) may take; zero means no limit.
  // With a limit, every run waits for its GPU work to finish (glClientWaitSync with a
  // deadline) and throws TimeoutError past it, before any result reaches the caller. Where
  // the driver runs kernels inside the call (llvmpipe's compute dispatches) the limit is
  // checked when the call returns; on GPUs a kernel still running is abandoned with its
  // Context (later calls throw ContextLostError). See docs/reliability.md.
  std::chrono::milliseconds timeout{0};
  // How many compiled programs the Context keeps for reuse, least recently used out first
  // (each holds driver memory: about 100 KB on llvmpipe); 0 keeps every program.
  std::size_t program_cache_limit = 128;
  // Keep linked programs on disk (the "programs" store of the cache directory, cache.hpp),
  // keyed by the driver and the complete source, so that later processes restore them
  // (glProgramBinary) instead of compiling. false here, or GPGPU_CACHE=off, turns it off.
  // The folder and GPGPU_CACHE are read when the Context is made.
  bool cache_programs = true;
  // Ask for robust buffer access (EGL_CONTEXT_OPENGL_ROBUST_ACCESS): reads past the end of a
  // storage buffer return zeros and writes past it are dropped, instead of undefined
  // behaviour. info().robust_buffer_access says whether the device granted it.
  bool robust_buffer_access = false;
  // How host arrays move to and from the device (data_path.hpp); the defaults suit the device.
  DataPathOptions data_path{};
  // A device-limit profile (limits.hpp: "es31-minimum", "v3d", ...) that clamps the limits
  // and extensions gpgpu plans with, to run as if on a smaller GPU. Empty: the GPGPU_LIMITS
  // environment variable if set, else the driver's own figures ("device" says so too).
  // An unknown name is a ContextError listing the profiles.
  std::string limits{};
  // Buffers of at least this many bytes take their memory from Vulkan on the same GPU,
  // imported into GL (GL_EXT_memory_object_fd), where the driver offers both: NVIDIA's GL
  // driver moves its own buffers of 512 MiB and more at about half the bandwidth of smaller
  // ones, and imported memory at full bandwidth (docs/memory.md, "Large buffers"). -1 (auto):
  // the GPGPU_IMPORTED_BUFFER_BYTES environment variable if set, else 64 MiB on GPUs and never
  // on software devices (their memory is the host's either way); 0: never. A Buffer whose
  // memory cannot be imported gets GL's own.
  std::int64_t imported_buffer_bytes = -1;
};

// How a Context's programs were made (Context::program_counts): compiled from source, or
// restored from the disk cache (ContextOptions::cache_programs), and the wall time each took
// in the driver's compile and link calls. Drivers may leave part of the work to a program's
// first run (llvmpipe generates its machine code then), which these times do not include.
struct ProgramCounts {
  std::size_t compiled = 0;    // programs compiled from source
  std::size_t restored = 0;    // programs restored from the disk cache
  double compile_seconds = 0;  // wall time in the compile and link calls
  double restore_seconds = 0;  // wall time in glProgramBinary
};

// A headless OpenGL ES 3.1+ context on one device: what every buffer, kernel and texture is
// made from (the manual at the top of this header).
class Context {
 public:
  // Makes the context and makes it current on this thread. Throws ContextError saying why
  // (no EGL library, no device, GLES version too low) and what to install.
  explicit Context(const ContextOptions& options = {});
  ~Context();
  Context(Context&&) noexcept;             // the moved-from Context is empty: released() is true
  Context& operator=(Context&&) noexcept;  // drops this Context's attachments first
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // The device's capabilities and limits, read when the context was made.
  const DeviceInfo& info() const;

  // Makes this context current on the calling thread (done automatically by every call).
  // A Context serves one thread at a time: it stays current on the thread that used it
  // last until that thread calls make_not_current() or ends. Another thread's call before
  // then throws ContextError.
  void make_current() const;
  // Releases the context from the calling thread (if current there), so that another thread
  // can use it next.
  void make_not_current() const;
  // Waits until the GPU has finished all submitted work.
  void finish() const;
  // Hands the work queued so far to the GPU without waiting (glFlush): for a caller about to
  // wait on the host for something else (an MPI message), so the GPU is not left idle with
  // commands the driver still holds.
  void flush() const;
  // Drops every cached program (they are recompiled on next use; kernels keep theirs).
  void clear_program_cache();
  // How many compiled programs the cache holds now.
  std::size_t cached_program_count() const;
  // How the programs used so far were made: compiled or restored, and the time each took.
  ProgramCounts program_counts() const;

  // Frees all GL objects and the EGL context now rather than at destruction. Objects made
  // from this context must not be used afterwards (they throw).
  void release();
  bool released() const noexcept;  // release() was called (or the context was moved from)

  // The data path (data_path.hpp). set_data_path completes every pending transfer first;
  // data_path() gives the options as resolved for this device.
  void set_data_path(const DataPathOptions& options);
  DataPathOptions data_path() const;  // the options as resolved for this device
  // What the data path has done so far: bytes moved each way, staging and pool use.
  DataPathStats data_path_stats() const;
  // Frees the idle device buffers the data path keeps for later runs.
  void trim_device_pool();

  // Per-context objects of libraries built on gpgpu (compiled kernels, scratch Buffers):
  // `make()` returns a std::shared_ptr<T> on the first call for `key` (and T); later calls
  // return the same object. Attachments are destroyed when the Context is released,
  // destroyed or assigned to, while their GL context still exists, so they never outlive
  // it (and do not keep it alive). Throws if the Context was released.
  //   auto& kernels = ctx.attachment<MyKernels>("mylib.kernels", [&] {
  //     return std::make_shared<MyKernels>(ctx); });
  template <class T, class Make>
  T& attachment(const std::string& key, Make&& make) const {
    const std::string full_key = key + "#" + typeid(T).name();
    if (void* found = find_attachment(full_key)) return *static_cast<T*>(found);
    std::shared_ptr<T> made = std::forward<Make>(make)();
    T& result = *made;
    add_attachment(full_key, std::move(made));
    return result;
  }
  // Destroys every attachment now (they are made again on next use).
  void clear_attachments() const noexcept;

  // For the library's own use (and code written before Buffer::belongs_to): the state shared
  // with buffers, kernels and textures. Not part of the manual; it may go.
  const std::shared_ptr<detail::ContextState>& state() const { return state_; }

 private:
  void* find_attachment(const std::string& key) const;
  void add_attachment(const std::string& key, std::shared_ptr<void> value) const;

  std::shared_ptr<detail::ContextState> state_;
};

}  // namespace gpgpu
