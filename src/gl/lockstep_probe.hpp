// Internal: measuring whether a CPU device runs a work group as SIMD vectors in lockstep.
//
// Mesa's llvmpipe runs a compute work group on one thread as SIMD vectors of consecutive
// invocations (8 lanes of 32 bits on 256-bit AVX2), one vector after another up to the next
// barrier(), each vector executing every instruction for all its lanes together. The
// primitives' emulated subgroups (ops/primitives/subgroup_glsl.hpp) rest on exactly that, so
// it is measured, not assumed from the driver's name: one work group of 64 invocations sets
// a flag per invocation in shared memory, then each counts the flags set. On such a device
// invocation i counts (i / W + 1) * W for a vector width W; anything else (zink over
// lavapipe counts 64 everywhere; a GPU's warps interleave) is not that execution model. The
// answer is kept per device and driver like the loop limit's.
#pragma once

#include "gl/context_state.hpp"

namespace gpgpu::detail {

// The lockstep vector width W in invocations (4 to 32, a power of two), or 0 when the device
// does not run work groups that way (or the probe could not run). Never throws.
int measure_lockstep_width(const DeviceInfo& info, const PlatformTraits& platform);

}  // namespace gpgpu::detail
