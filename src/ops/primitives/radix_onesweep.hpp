// Internal: the Onesweep radix sort (Adinets & Merrill 2022) on the subgroup kernels: one
// histogram pass for all four digits, then one pass per 8-bit digit.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/primitives.hpp"
#include "radix_sort_glsl.hpp"
#include "sort_plan.hpp"
#include "subgroup_glsl.hpp"

namespace gpgpu::primitives {

// One pass's sources and destinations (element offsets into each Buffer).
struct PassBuffers {
  const Buffer* keys_in;
  std::size_t in_first;
  const Buffer* keys_out;
  std::size_t out_first;
  const Buffer* values_in = nullptr;  // null: keys only
  std::size_t vin_first = 0;
  const Buffer* values_out = nullptr;
  std::size_t vout_first = 0;
  bool iota = false;  // values_in is unused: the values are iota_base + index
  std::size_t iota_base = 0;
};

// The pass kernels' shape for a tuning (filled in) on subgroups `sg`, and its shared memory
// (with the subgroup layer's).
SortShape onesweep_shape(const PrimitiveTuning& t, const Subgroups& sg);
std::int64_t onesweep_shared_bytes(const SortShape& shape, const Subgroups& sg);

// Sorts `count` keys through the four passes (pass p sorts by bits [8p, 8p + 8)) with the
// kernels of `plan` (plan_sort chose Onesweep); the histogram reads passes[0]'s input.
void onesweep_sort(const Context& ctx, const SortPlan& plan, std::size_t count, bool descending,
                   const std::array<PassBuffers, 4>& passes);

}  // namespace gpgpu::primitives
