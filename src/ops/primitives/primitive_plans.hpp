// Internal: every kernel a call of each primitive compiles on a device, as its planner chooses
// it from DeviceInfo and the (filled-in) tuning alone. The primitives compile exactly these;
// the planner tests check each against a device's limits (storage blocks and binding points,
// work-group size, shared memory, extensions) without running anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "compaction_glsl.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/primitives.hpp"
#include "primitive_registry.hpp"

namespace gpgpu::primitives {

std::vector<KernelSpec> reduce_kernels(const DeviceInfo& info, const PrimitiveTuning& t,
                                       ElementType type, int components, const Operator& op);
std::vector<KernelSpec> argextreme_kernels(const DeviceInfo& info, const PrimitiveTuning& t,
                                           ElementType type, bool max);
std::vector<KernelSpec> scan_kernels(const DeviceInfo& info, const PrimitiveTuning& t,
                                     ElementType type, int components, const Operator& op,
                                     ScanAlgorithm algorithm);
// The four digit passes' kernels (the scans of the digit counts are scan_kernels' uint32 sums).
std::vector<KernelSpec> sort_kernels(const DeviceInfo& info, const PrimitiveTuning& t,
                                     ElementType key_type, bool with_values, std::size_t count);
std::vector<KernelSpec> histogram_kernels(const DeviceInfo& info, const PrimitiveTuning& t,
                                          ElementType type, std::uint32_t bins);
// Without subgroups the flags go through scan_kernels' uint32 sums as well.
std::vector<KernelSpec> compaction_kernels(const DeviceInfo& info, const PrimitiveTuning& t,
                                           ElementType type, int components, CompactKind kind,
                                           const std::string& predicate);
// `longest`: the longest segment's elements (the work group is sized by it on CPU devices).
std::vector<KernelSpec> segmented_kernels(const DeviceInfo& info, const PrimitiveTuning& t,
                                          ElementType type, int components, const Operator& op,
                                          std::size_t longest);

}  // namespace gpgpu::primitives
