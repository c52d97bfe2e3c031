// Internal: what the primitives keep per Context (compiled kernels, scratch Buffers), held
// as a Context attachment so that it dies with the Context.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/primitives.hpp"

namespace gpgpu::primitives {

// One kernel variant a planner chose: its Registry key (which names the variant) and its
// GLSL, made on first use. Planners return these from DeviceInfo and the tuning alone, so
// that tests can check every kernel a call would compile against a device's limits.
struct KernelSpec {
  std::string key;
  std::function<std::string()> source;
};

class Registry {
 public:
  // The kernel stored under `key`, compiled from make_source() on first use.
  ComputeKernel& kernel(const Context& ctx, const std::string& key,
                        const std::function<std::string()>& make_source);
  ComputeKernel& kernel(const Context& ctx, const KernelSpec& spec) {
    return kernel(ctx, spec.key, spec.source);
  }
  // A scratch Buffer of at least `count` elements of `type` for `slot` (grown on demand,
  // never shrunk; its contents are undefined). Slots let one primitive call another.
  Buffer& scratch(const Context& ctx, const std::string& slot, ElementType type, std::size_t count);
  // Like scratch, but zero-filled whenever it is (re)allocated; `fresh` tells the caller.
  Buffer& zeroed_scratch(const Context& ctx, const std::string& slot, ElementType type,
                         std::size_t count, bool& fresh);
  std::size_t scratch_bytes() const;
  // A counter per name (for epochs of tile flags): returns 1, 2, 3, ... per call.
  std::uint32_t next_count(const std::string& name);
  void reset_count(const std::string& name);
  // A number kept per name between calls (0 at first), e.g. how much of a scratch Buffer the
  // last call left in a known state.
  std::size_t& value(const std::string& name) { return values_[name]; }

  // Runs `kernel` with those of `args` that name one of its active variables (the driver
  // drops variables a variant does not use; the missing ones are still reported).
  void run(ComputeKernel& kernel, const Args& args, Size3 groups);
  // The same for `items` invocations (ComputeKernel::run with a count).
  void run_items(ComputeKernel& kernel, const Args& args, std::size_t items);

  PrimitiveTuning tuning;  // as set by set_primitive_tuning (zeros: device defaults)

 private:
  std::map<std::string, std::unique_ptr<ComputeKernel>> kernels_;
  Args active(ComputeKernel& kernel, const Args& args);
  std::map<const ComputeKernel*, std::set<std::string>> variable_names_;
  std::map<std::string, Buffer> scratch_;
  std::map<std::string, std::uint32_t> counts_;
  std::map<std::string, std::size_t> values_;
};

// Work groups for `groups` (which may exceed the x limit) as a 2-D grid: x * y >= groups;
// kernels compute gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x and skip
// indices past `groups`.
Size3 grid_for(const Context& ctx, std::size_t groups);

// The Registry of `ctx` (throws if the Context was released).
Registry& registry(const Context& ctx);

}  // namespace gpgpu::primitives
