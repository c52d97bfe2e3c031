// Internal: what the Profiler and the Timeline both ask of GPU timestamps.
#pragma once

#include "gl/gl.hpp"

namespace gpgpu::detail {

struct ContextState;

// Bits of the GPU timestamp counter; 0 where the device cannot record timestamps.
GLint timestamp_bits();

// Why GPU timestamps cannot be used on this context ("" when they can).
const char* timestamps_unusable(const ContextState& state);

}  // namespace gpgpu::detail
