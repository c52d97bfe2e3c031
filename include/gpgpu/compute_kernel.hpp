// gpgpu/compute_kernel.hpp — a GLSL compute shader you run over host arrays or Buffers.
//
//   gpgpu::ComputeKernel add(ctx, R"(
//     layout(local_size_x = 256) in;
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
// Storage blocks need distinct `layout(binding = N)`s (GLES cannot rebind them).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
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
}

// A 1-, 2- or 3-dimensional size.
struct Size3 {
  std::size_t x = 1, y = 1, z = 1;
  std::size_t total() const { return x * y * z; }
};

class ComputeKernel {
 public:
  // Compiles (or takes from the context's cache) the kernel. Throws CompileError with the
  // driver log and the numbered source.
  ComputeKernel(const Context& context, std::string_view source, const Defines& defines = {},
                std::string label = "compute kernel");
  ~ComputeKernel();
  ComputeKernel(ComputeKernel&&) noexcept;
  ComputeKernel& operator=(ComputeKernel&&) noexcept;
  ComputeKernel(const ComputeKernel&) = delete;
  ComputeKernel& operator=(const ComputeKernel&) = delete;

  // Runs one invocation per element of the bound arrays (they must agree in length).
  void run(const Args& args);
  // Runs `items` invocations (split automatically beyond the work-group count limit).
  void run(const Args& args, std::size_t items);
  // Runs a 2-D or 3-D grid of invocations (rounded up to whole work groups).
  void run(const Args& args, Size3 items);
  // Runs exactly `groups` work groups.
  void run_groups(const Args& args, Size3 groups);

  // The same runs, asynchronously (pending_run.hpp): each returns once the arguments are
  // checked and the host inputs copied; the host outputs are written by the handle's wait().
  // Runs on Buffers only need no wait: GL orders later commands after them.
  PendingRun run_async(const Args& args);
  PendingRun run_async(const Args& args, std::size_t items);
  PendingRun run_async(const Args& args, Size3 items);
  PendingRun run_groups_async(const Args& args, Size3 groups);

  std::array<int, 3> local_size() const;
  std::vector<KernelVariable> variables() const;
  const std::string& label() const;

  // GPU nanoseconds of the last run's dispatch, when timing is on and the device has
  // timer queries (GL_EXT_disjoint_timer_query); otherwise -1.
  void set_timing(bool enabled) { timing_ = enabled; }
  double last_gpu_ns() const { return last_gpu_ns_; }

 private:
  enum class SizeMode { Derived, Items1D, Items3D, Groups };
  // validate -> plan -> upload -> launch -> commit (src/kernels/kernel_core.hpp).
  PendingRun start(const Args& args, SizeMode mode, Size3 size, bool async);

  std::shared_ptr<detail::ContextState> state_;
  std::shared_ptr<detail::Program> program_;
  bool timing_ = false;
  double last_gpu_ns_ = -1;
};

}  // namespace gpgpu
