// Internal: what the primitives' kernels may use on a device, read from DeviceInfo (the
// driver's limits, or a device-limit profile's: gpgpu/limits.hpp). Every planner sizes its
// work groups and shared arrays, counts its storage blocks and picks its load path from this
// alone, so that a kernel gpgpu chooses never exceeds what the device allows.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpgpu/context.hpp"

namespace gpgpu::primitives {

struct DeviceFit {
  int invocations = 0;             // per work group, and along x
  std::int64_t shared_bytes = 0;   // shared memory per work group
  int storage_blocks = 0;          // storage blocks per compute shader (and per program)
  int storage_bindings = 0;        // storage-buffer binding points: bindings 0 .. this - 1
  int texture_units = 0;           // samplers per compute shader
  bool texture_buffers = false;    // samplerBuffer (OpenGL ES 3.2, GL_EXT/OES_texture_buffer)
  std::int64_t buffer_texels = 0;  // texels one buffer texture holds (GL_MAX_TEXTURE_BUFFER_SIZE)
};

DeviceFit device_fit(const DeviceInfo& info);

// The largest power of two no larger than `wanted` and the device's work groups.
int fit_local(int wanted, const DeviceFit& fit);

// A kernel whose storage blocks number `blocks` at bindings below `bindings` fits.
bool fits_storage(const DeviceFit& fit, int blocks, int bindings);

// Buffer-texture loads (two samplers: the vec4 and scalar views) are possible.
// Loads through buffer textures are possible, for an input Buffer of `texels` elements (0:
// its size is not known yet; the run that knows it asks again).
bool texel_loads_possible(const DeviceFit& fit, std::size_t texels = 0);

}  // namespace gpgpu::primitives
