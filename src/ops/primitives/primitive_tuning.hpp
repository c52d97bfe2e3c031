// Internal: the primitives' kernel shapes for a Context (device defaults, under the shapes
// kept on disk by store_primitive_tuning, under what set_primitive_tuning set), fitted to the
// device's limits.
#pragma once

#include <cstdint>
#include <optional>

#include "gpgpu/context.hpp"
#include "gpgpu/primitives.hpp"

namespace gpgpu::primitives {

// Every field filled in: set_primitive_tuning's fields, else the stored shapes, else the
// device defaults.
PrimitiveTuning effective_tuning(const Context& ctx);

// The same from the parts: `user` as set_primitive_tuning left it (checked against the
// device then), `stored` as read from the disk cache. The device defaults and the stored
// shapes are shrunk to the device's work-group and shared-memory limits (a shape stored for
// a device is read again under a device-limit profile, which the store's key does not name).
PrimitiveTuning effective_tuning(const DeviceInfo& info, const PrimitiveTuning& user,
                                 const std::optional<PrimitiveTuning>& stored);

// The shapes kept by store_primitive_tuning for this device and driver, if any (read from the
// disk cache once per Context; primitive_tuning_store.cpp).
const std::optional<PrimitiveTuning>& stored_tuning(const Context& ctx);

// Shared memory per work group of the scan's tile kernels and of the sort's scatter kernels
// at the (filled-in) shapes of `t`: the most any element type, component count or kernel of
// that family declares.
std::int64_t scan_shared_need(const PrimitiveTuning& t);
std::int64_t sort_shared_need(const PrimitiveTuning& t);

}  // namespace gpgpu::primitives
