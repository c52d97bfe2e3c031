// Internal: what the primitives keep per Context (compiled kernels, scratch Buffers), held
// as a Context attachment so that it dies with the Context.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"

namespace gpgpu::primitives {

class Registry {
 public:
  // The kernel stored under `key`, compiled from make_source() on first use.
  ComputeKernel& kernel(const Context& ctx, const std::string& key,
                        const std::function<std::string()>& make_source);
  // A scratch Buffer of at least `count` elements of `type` for `slot` (grown on demand,
  // never shrunk; its contents are undefined). Slots let one primitive call another.
  Buffer& scratch(const Context& ctx, const std::string& slot, ElementType type, std::size_t count);
  std::size_t scratch_bytes() const;

 private:
  std::map<std::string, std::unique_ptr<ComputeKernel>> kernels_;
  std::map<std::string, Buffer> scratch_;
};

// The Registry of `ctx` (throws if the Context was released).
Registry& registry(const Context& ctx);

}  // namespace gpgpu::primitives
