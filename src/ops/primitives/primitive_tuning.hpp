// Internal: the primitives' kernel shapes for a Context (device defaults, under the shapes
// kept on disk by store_primitive_tuning, under what set_primitive_tuning set).
#pragma once

#include <optional>

#include "gpgpu/context.hpp"
#include "gpgpu/primitives.hpp"

namespace gpgpu::primitives {

// Every field filled in: set_primitive_tuning's fields, else the stored shapes, else the
// device defaults.
PrimitiveTuning effective_tuning(const Context& ctx);

// The shapes store_primitive_tuning kept for this device and driver, if any (read from the
// disk cache once per Context; primitive_tuning_store.cpp).
const std::optional<PrimitiveTuning>& stored_tuning(const Context& ctx);

}  // namespace gpgpu::primitives
