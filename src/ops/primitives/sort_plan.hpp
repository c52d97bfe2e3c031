// Internal: which kernels the radix sort's four digit passes run, chosen from DeviceInfo and
// the tuning alone (radix_sort.cpp and radix_onesweep.cpp launch them).
#pragma once

#include <cstddef>
#include <vector>

#include "gpgpu/context.hpp"
#include "gpgpu/primitives.hpp"
#include "primitive_registry.hpp"
#include "radix_sort_glsl.hpp"
#include "subgroup_glsl.hpp"

namespace gpgpu::primitives {

struct SortPlan {
  // Onesweep (subgroup kernels, asked for, and fitting the device): `histogram` once, then
  // `pass` per digit. Otherwise per digit: `up` (tile counts), a scan of the counts, `down`
  // (the scatter of keys, and of values unless split), and where 4 storage blocks are too
  // few for keys and values at once, `down_values` (the values, ranked again).
  bool onesweep = false;
  SortShape shape;
  Subgroups sg;                                              // Onesweep's layer
  int histogram_local = 0;                                   // Onesweep's histogram work group
  KernelSpec up, down, down_values, histogram, pass, clear;  // clear: Onesweep's status words
  std::vector<KernelSpec> kernels() const;
};

SortPlan plan_sort(const DeviceInfo& info, const PrimitiveTuning& t, ElementType key_type,
                   bool with_values, std::size_t count);

}  // namespace gpgpu::primitives
