// gpgpu/compute_kernel.hpp — a GLSL compute shader you run over host arrays or Buffers.
//
//   gpgpu::ComputeKernel add(ctx, R"(
//     layout(local_size_x = 128) in;
//     layout(std430, binding = 0) readonly buffer A { float a[]; };
//     layout(std430, binding = 1) readonly buffer B { float b[]; };
//     layout(std430, binding = 2) writeonly buffer C { float c[]; };
//     void main() {
//       uint i = gpgpu_index();
//       if (i < gpgpu_count) c[i] = a[i] + b[i];
//     })");
//   add.run({{"a", a}, {"b", b}, {"c", gpgpu::out(c)}});  // size taken from the arrays
//
// You write declarations and main; gpgpu adds `#version` and default precisions when they
// are absent, and these helpers:
//   uint gpgpu_index()   the linear index of this invocation, also when a dispatch larger
//                        than the device's work-group count limit is split into rows
//   uint gpgpu_count     the number of work items asked for (invocations past it must return)
//   uint gpgpu_pass_begin, gpgpu_pass_end   the loop range of this pass (run_in_passes)
// Storage blocks need distinct `layout(binding = N)`s (GLES cannot rebind them).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpgpu/arg.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/defines.hpp"
#include "gpgpu/kernel_variable.hpp"
#include "gpgpu/pending_run.hpp"

namespace gpgpu {

namespace detail {
class Program;
struct ProgramRequest;
}  // namespace detail

// A 1-, 2- or 3-dimensional size.
struct Size3 {
  // @{
  // The extent along each axis (1 for unused axes).
  std::size_t x = 1, y = 1, z = 1;
  // @}
  std::size_t total() const { return x * y * z; }  // x * y * z
};

// A GLSL compute shader run over host arrays or Buffers bound by name (the manual at the top
// of this header). Move-only.
class ComputeKernel {
 public:
  // Compiles (or takes from the context's cache) the kernel. Throws CompileError with the
  // driver log and the numbered source. Inside a CompileBatch (below), only notes the kernel
  // for the batch: a CompileError then comes at its first use.
  ComputeKernel(const Context& context, std::string_view source, const Defines& defines = {},
                std::string label = "compute kernel");
  ~ComputeKernel();
  // @{
  // Moves the compiled kernel; running a moved-from kernel throws Error.
  ComputeKernel(ComputeKernel&&) noexcept;
  ComputeKernel& operator=(ComputeKernel&&) noexcept;
  // @}
  ComputeKernel(const ComputeKernel&) = delete;
  ComputeKernel& operator=(const ComputeKernel&) = delete;

  // Runs one invocation per element of the bound arrays (they must agree in length).
  void run(const Args& args);
  // Runs `items` invocations (split automatically beyond the work-group count limit).
  // The rule for explicit sizes: gpgpu runs exactly the work asked for and cannot know how a
  // kernel indexes (a histogram rightly runs many more items than its counts array has), so
  // the kernel must keep every access inside its arrays: compare with .length() or a size
  // it is given, not only with gpgpu_count. Accesses past an array are undefined on GPUs;
  // with ContextOptions::robust_buffer_access (where granted) they read zeros and writes
  // are dropped. `gpgpu run` refuses --size past the longest array unless told otherwise.
  void run(const Args& args, std::size_t items);
  // Runs a 2-D or 3-D grid of invocations (rounded up to whole work groups).
  void run(const Args& args, Size3 items);
  // Runs exactly `groups` work groups (not checked against the arrays' lengths).
  void run_groups(const Args& args, Size3 groups);

  // Runs `items` invocations of a kernel whose loop is longer than one dispatch may take on
  // devices that cap loops (DeviceInfo::max_loop_iterations: llvmpipe ends loops silently
  // past 65535 iterations, all the loops of an invocation together, nested or not). The
  // loop's range [0, loop_length) is cut into passes of at most `pass_length` iterations
  // (0: the device's cap less 1024 for the kernel's other loops, or the whole range where
  // there is no cap), each one run(args, items) with gpgpu_pass_begin and gpgpu_pass_end
  // set to its range. The kernel carries its state across passes in its arrays:
  //   float sum = gpgpu_pass_begin == 0u ? 0.0 : sums[i];
  //   for (uint t = gpgpu_pass_begin; t < gpgpu_pass_end; ++t) sum += x[t];
  //   sums[i] = sum;
  // so those must be read-write host arrays or Buffers: write-only arrays (gpgpu::out) are
  // never uploaded, and are refused (ArgumentError). Host arrays travel every pass; Buffers
  // stay on the GPU. A plain run() sets both uniforms to 0.
  void run_in_passes(const Args& args, std::size_t items, std::uint64_t loop_length,
                     std::uint64_t pass_length = 0);

  // The same runs, asynchronously (pending_run.hpp): each returns once the arguments are
  // checked and the host inputs copied; the host outputs are written by the handle's wait().
  // Runs on Buffers only need no wait: GL orders later commands after them.
  // @{
  PendingRun run_async(const Args& args);
  PendingRun run_async(const Args& args, std::size_t items);
  PendingRun run_async(const Args& args, Size3 items);
  PendingRun run_groups_async(const Args& args, Size3 groups);
  // @}

  // These throw Error on a moved-from kernel, as run() does.
  // The work-group size the shader declares (local_size_x, _y, _z).
  std::array<int, 3> local_size() const;
  // The kernel's variables as the driver reports them (what Args bind to).
  std::vector<KernelVariable> variables() const;
  // The label given at construction (it names the kernel in errors and profiles).
  const std::string& label() const;
  // Whether the kernel was made from `context` (and not moved from).
  bool belongs_to(const Context& context) const noexcept;
  // For the library's own use (prefer belongs_to); not part of the manual.
  const std::shared_ptr<detail::ContextState>& context_state() const noexcept { return state_; }

  // GPU nanoseconds of the last run's dispatch, when timing is on and the device has
  // timer queries (GL_EXT_disjoint_timer_query); otherwise -1.
  void set_timing(bool enabled) { timing_ = enabled; }
  double last_gpu_ns() const { return last_gpu_ns_; }  // see set_timing

 private:
  enum class SizeMode { Derived, Items1D, Items3D, Groups };
  // validate -> plan -> upload -> launch -> commit (src/kernels/kernel_core.hpp).
  PendingRun start(const Args& args, SizeMode mode, Size3 size, bool async);
  // The compiled program; throws Error when this kernel was moved from.
  const detail::Program& program() const;

  std::shared_ptr<detail::ContextState> state_;
  // Set on first use when the kernel was made inside a CompileBatch (then `deferred_` says
  // what to take from the context's cache, or compile alone if the batch could not).
  mutable std::shared_ptr<detail::Program> program_;
  mutable std::shared_ptr<const detail::ProgramRequest> deferred_;
  std::string label_;
  bool timing_ = false;
  double last_gpu_ns_ = -1;
  // The loop range of the current pass of run_in_passes; {0, 0} otherwise.
  std::uint32_t pass_begin_ = 0, pass_end_ = 0;
};

// What a ComputeKernel is constructed from, for precompile.
struct KernelSource {
  std::string source;                    // the GLSL, as for ComputeKernel's constructor
  Defines defines;                       // the #defines to compile it with
  std::string label = "compute kernel";  // names the kernel in errors
};

// Compiles kernels ahead of their construction, all at once: where the driver compiles on
// threads of its own (GL_KHR_parallel_shader_compile; not NVIDIA's or llvmpipe's, measured),
// a batch takes about as long as its slowest kernels instead of their sum; kernels in the
// disk cache (ContextOptions::cache_programs) are restored instead. They wait in the
// Context's program cache (mind ContextOptions::program_cache_limit), where a ComputeKernel
// constructed afterwards from the same source and defines finds them. A kernel that does not
// compile is skipped: constructing it throws its CompileError as always. Returns how many are
// ready.
//   std::vector<gpgpu::KernelSource> variants = ...;  // e.g. an autotuner's candidates
//   gpgpu::precompile(ctx, variants);
std::size_t precompile(const Context& context, std::span<const KernelSource> kernels);

// Code that constructs many kernels before running any (a network's plan, a solver's
// stages) can have them compiled together, like precompile, without listing them first: the
// ComputeKernels constructed on `context` while a CompileBatch lives only note their source,
// and the batch compiles them all when it ends (or at compile()). A kernel that does not
// compile throws its CompileError at its first use (run, local_size, variables) instead of
// in its constructor. Batches nest: the outermost one compiles.
//   {
//     gpgpu::CompileBatch batch(ctx);
//     for (auto& s : stages) kernels.emplace_back(ctx, s.source, s.defines);
//   }  // compiled here, on several threads where the platform allows
class CompileBatch {
 public:
  // Starts a batch: ComputeKernels made on `context` from now on only note their source.
  explicit CompileBatch(const Context& context);
  ~CompileBatch();  // compiles what is noted (outermost batch); never throws
  CompileBatch(const CompileBatch&) = delete;
  CompileBatch& operator=(const CompileBatch&) = delete;
  // Compiles the kernels noted so far (any batch level); returns how many are ready.
  std::size_t compile();

 private:
  std::shared_ptr<detail::ContextState> state_;
};

}  // namespace gpgpu
