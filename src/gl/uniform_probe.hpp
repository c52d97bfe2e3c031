// Internal: checking that every compute dispatch sees the uniform values set for it.
//
// Mesa's zink (22.3) on a CPU Vulkan device (lavapipe) compiles a variant of a compute
// program per set of values of the uniforms its loops and branches test ("inlined
// uniforms"), and after a switch to another program and back it can dispatch a variant built
// for earlier values: a loop bound of 1 from a run before, where the run asked for 64
// (zink_bind_cs_state never restores the program's module hash, so the pipeline cached for
// "no module" is reused). gpgpu turns that optimisation off before the driver loads
// (platform/egl/egl_environment.cpp), and checks here that dispatches do see their values:
// two programs of one source, each counting to its uniform, in the order that exposed it.
// The answer is kept per device and driver like the loop limit's.
#pragma once

#include "gl/context_state.hpp"

namespace gpgpu::detail {

// False when a dispatch counted to an earlier dispatch's uniform value. True also when the
// probe could not run. Never throws.
bool uniforms_reach_every_dispatch(const DeviceInfo& info, const PlatformTraits& platform);

}  // namespace gpgpu::detail
