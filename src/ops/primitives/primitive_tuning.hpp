// Internal: the primitives' kernel shapes for a Context (device defaults merged with what
// set_primitive_tuning stored).
#pragma once

#include "gpgpu/context.hpp"
#include "gpgpu/primitives.hpp"

namespace gpgpu::primitives {

// Every field filled in.
PrimitiveTuning effective_tuning(const Context& ctx);

}  // namespace gpgpu::primitives
