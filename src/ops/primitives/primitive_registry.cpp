#include "primitive_registry.hpp"

#include <algorithm>

#include "gpgpu/primitives.hpp"

namespace gpgpu::primitives {

namespace {
constexpr const char* attachment_key = "gpgpu.primitives";
}

ComputeKernel& Registry::kernel(const Context& ctx, const std::string& key,
                                const std::function<std::string()>& make_source) {
  auto it = kernels_.find(key);
  if (it == kernels_.end()) {
    auto made = std::make_unique<ComputeKernel>(ctx, make_source(), Defines{}, "gpgpu " + key);
    it = kernels_.emplace(key, std::move(made)).first;
  }
  return *it->second;
}

Buffer& Registry::scratch(const Context& ctx, const std::string& slot, ElementType type,
                          std::size_t count) {
  const std::string key = slot + "/" + std::string(to_string(type));
  Buffer& b = scratch_[key];
  if (!b.valid() || b.size() < count) {
    // Small scratch grows by at least half again, so a slowly growing workload reallocates
    // rarely; large scratch is sized exactly (device memory matters more there).
    constexpr std::size_t large = std::size_t{1} << 22;
    const std::size_t grown =
        count >= large ? count : std::max<std::size_t>({count, 64, b.size() + b.size() / 2});
    b = Buffer();  // free the old one before allocating its successor
    b = Buffer(ctx, type, grown);
  }
  return b;
}

std::size_t Registry::scratch_bytes() const {
  std::size_t total = 0;
  for (const auto& [key, b] : scratch_) total += b.bytes();
  return total;
}

Registry& registry(const Context& ctx) {
  return ctx.attachment<Registry>(attachment_key, [] { return std::make_shared<Registry>(); });
}

}  // namespace gpgpu::primitives

namespace gpgpu {

void release_primitive_resources(const Context& ctx) {
  // Replacing the attachment frees the old kernels and Buffers while the context is current.
  primitives::registry(ctx) = primitives::Registry();
}

std::size_t primitive_scratch_bytes(const Context& ctx) {
  return primitives::registry(ctx).scratch_bytes();
}

}  // namespace gpgpu
