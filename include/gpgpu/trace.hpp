// gpgpu/trace.hpp — see a kernel's memory access pattern ("visualise which
// memory locations the invocations access").
//
//   gpgpu::TracedKernel traced(ctx, source, {.buffer = "dst"});
//   gpgpu::AccessTrace trace = traced.run({{"src", in}, {"dst", gpgpu::out(out)}, ...}, items);
//   std::cout << trace.summary();                  // coalescing of reads and writes
//   gpgpu::write_access_png(trace, "dst.png");     // address vs invocation
//
// How: gpgpu compiles an instrumented copy of the kernel in which every subscript of the
// traced array, `dst[expr]`, becomes `dst[gpgpu_trace_touch(expr, kind)]`; the helper
// appends (invocation, element, read/write) to a log buffer with an atomic counter and
// returns the index, so the kernel computes exactly what it computed before (your outputs
// are written as usual). Nothing needs to change in your kernel. The kind comes from the
// operator after the subscript (`=` writes, `+=`/`++` and atomic*() read and write, the rest
// reads).
// Limits: the rewrite is textual — a struct member or a local array with the traced name is
// traced too; only subscripts are seen (an array passed whole, or copied, is not); the log
// costs an atomic per access, so traces are for small problems (capacity accesses are kept,
// the rest only counted); the log needs one free storage binding (the device's last).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "gpgpu/access_trace.hpp"
#include "gpgpu/arg.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/defines.hpp"

namespace gpgpu {

// What a TracedKernel records.
struct TraceOptions {
  // The array to trace: a storage block's array member ("dst") or the block's name ("Out"),
  // or a shared array.
  std::string buffer;
  std::size_t capacity = std::size_t{1} << 22;  // accesses kept (8 bytes each on the GPU)
  // Bytes per element for CoalescingStats; 0: from the element's GLSL type (4 for scalars,
  // 8 for vec2, 16 for vec3/vec4 in std430), 4 where that is unknown (structs).
  std::size_t element_bytes = 0;
};

// A compute kernel instrumented to log every access to one array (the manual at the top of
// this header). Move-only.
class TracedKernel {
 public:
  // Compiles the kernel as given (to learn its arrays) and the instrumented copy. Throws
  // UnknownArgumentError when options.buffer names no array of the kernel, ArgumentError
  // when the kernel never subscripts it, CompileError as ComputeKernel does.
  TracedKernel(const Context& context, std::string_view source, const TraceOptions& options,
               const Defines& defines = {}, std::string label = "traced kernel");
  ~TracedKernel();
  // @{
  // Moves the kernels; a moved-from TracedKernel must not be used.
  TracedKernel(TracedKernel&&) noexcept;
  TracedKernel& operator=(TracedKernel&&) noexcept;
  // @}
  TracedKernel(const TracedKernel&) = delete;
  TracedKernel& operator=(const TracedKernel&) = delete;

  // @{
  // As ComputeKernel's run and run_groups; each returns the trace of that one run.
  AccessTrace run(const Args& args);
  AccessTrace run(const Args& args, std::size_t items);
  AccessTrace run(const Args& args, Size3 items);
  AccessTrace run_groups(const Args& args, Size3 groups);
  // @}

  // The GLSL actually compiled: the kernel with a log write at every subscript of the array.
  const std::string& instrumented_source() const noexcept { return instrumented_source_; }
  std::size_t sites() const noexcept { return sites_; }  // subscripts instrumented
  ComputeKernel& kernel() noexcept { return *kernel_; }  // the instrumented kernel

 private:
  template <class Runner>
  AccessTrace traced(const Args& args, Runner&& run_kernel);

  std::unique_ptr<ComputeKernel> kernel_;
  Buffer log_;
  TraceOptions options_;
  std::string array_, glsl_type_;
  std::string instrumented_source_;
  std::size_t sites_ = 0;
  std::size_t element_bytes_ = 4;
};

// How a traced run is dispatched, mirroring ComputeKernel's run overloads (for the CLI).
struct TraceDispatch {
  // Which run overload: sizes from the arrays, items, a grid of items, or work groups.
  enum class Mode { Derived, Items, Grid, Groups };
  Mode mode = Mode::Derived;  // which overload
  Size3 size;                 // its size argument
  static TraceDispatch derived() { return {}; }                                   // run(args)
  static TraceDispatch items(std::size_t n) { return {Mode::Items, {n, 1, 1}}; }  // run(args, n)
  static TraceDispatch grid(Size3 items) { return {Mode::Grid, items}; }        // run(args, Size3)
  static TraceDispatch groups(Size3 groups) { return {Mode::Groups, groups}; }  // run_groups
};

// One call for `gpgpu trace`: compiles the traced kernel, runs it once as `dispatch` says and
// returns the trace (host arrays in `args` that the kernel writes are written back).
AccessTrace trace_kernel(const Context& context, std::string_view source, const Args& args,
                         const TraceDispatch& dispatch, const TraceOptions& options,
                         const Defines& defines = {}, std::string label = "traced kernel");

}  // namespace gpgpu
