#include "device_fit.hpp"

#include <algorithm>
#include <bit>

namespace gpgpu::primitives {

namespace {
int as_int(std::int64_t v) {
  return static_cast<int>(std::clamp<std::int64_t>(v, 0, 1 << 30));
}
}  // namespace

DeviceFit device_fit(const DeviceInfo& info) {
  DeviceFit f;
  f.invocations = as_int(
      std::min(info.max_compute_work_group_invocations, info.max_compute_work_group_size[0]));
  f.shared_bytes = info.max_compute_shared_memory_size;
  f.storage_blocks = as_int(
      std::min(info.max_compute_shader_storage_blocks, info.max_combined_shader_storage_blocks));
  f.storage_bindings = as_int(info.max_shader_storage_buffer_bindings);
  f.texture_units = as_int(info.max_compute_texture_image_units);
  f.texture_buffers = info.has_texture_buffers();
  f.buffer_texels = info.max_texture_buffer_size;
  return f;
}

int fit_local(int wanted, const DeviceFit& fit) {
  const int most = std::max(1, std::min(wanted, fit.invocations));
  return static_cast<int>(std::bit_floor(static_cast<unsigned>(most)));
}

bool fits_storage(const DeviceFit& fit, int blocks, int bindings) {
  return blocks <= fit.storage_blocks && bindings <= fit.storage_bindings;
}

bool texel_loads_possible(const DeviceFit& fit, std::size_t texels) {
  return fit.texture_buffers && fit.texture_units >= 2 &&
         texels <= static_cast<std::size_t>(std::max<std::int64_t>(fit.buffer_texels, 0));
}

}  // namespace gpgpu::primitives
