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

Buffer& Registry::zeroed_scratch(const Context& ctx, const std::string& slot, ElementType type,
                                 std::size_t count, bool& fresh) {
  const std::string key = slot + "/" + std::string(to_string(type));
  const auto it = scratch_.find(key);
  fresh = it == scratch_.end() || !it->second.valid() || it->second.size() < count;
  Buffer& b = scratch(ctx, slot, type, count);
  if (fresh) {
    try {
      switch (type) {
        case ElementType::Float32:
          b.upload(std::vector<float>(b.size(), 0.0f));
          break;
        case ElementType::Int32:
          b.upload(std::vector<std::int32_t>(b.size(), 0));
          break;
        case ElementType::Uint32:
          b.upload(std::vector<std::uint32_t>(b.size(), 0u));
          break;
      }
    } catch (...) {
      // A fill that fails (refused inside a recording) leaves no Buffer: the next call finds
      // it missing and fills it then, instead of taking unfilled memory for zeros.
      b.release();
      throw;
    }
  }
  return b;
}

std::uint32_t Registry::next_count(const std::string& name) {
  return ++counts_[name];
}
void Registry::reset_count(const std::string& name) {
  counts_[name] = 0;
}

void Registry::run(ComputeKernel& kernel, const Args& args, Size3 groups) {
  kernel.run_groups(active(kernel, args), groups);
}

void Registry::run_items(ComputeKernel& kernel, const Args& args, std::size_t items) {
  kernel.run(active(kernel, args), items);
}

Args Registry::active(ComputeKernel& kernel, const Args& args) {
  auto it = variable_names_.find(&kernel);
  if (it == variable_names_.end()) {
    std::set<std::string> names;
    for (const auto& v : kernel.variables()) {
      names.insert(v.name);
      if (!v.alias.empty()) names.insert(v.alias);
    }
    it = variable_names_.emplace(&kernel, std::move(names)).first;
  }
  Args used;
  for (const auto& a : args) {
    if (it->second.count(a.name)) used.push_back(a);
  }
  return used;
}

Size3 grid_for(const Context& ctx, std::size_t groups) {
  const auto max_x = static_cast<std::size_t>(ctx.info().max_compute_work_group_count[0]);
  if (groups <= max_x) return {std::max<std::size_t>(groups, 1), 1, 1};
  const std::size_t y = (groups + max_x - 1) / max_x;
  return {(groups + y - 1) / y, y, 1};
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
  auto& registry = primitives::registry(ctx);
  const PrimitiveTuning tuning = registry.tuning;
  registry = primitives::Registry();
  registry.tuning = tuning;
}

std::size_t primitive_scratch_bytes(const Context& ctx) {
  return primitives::registry(ctx).scratch_bytes();
}

}  // namespace gpgpu
