// Internal: the GLSL of the histogram kernels.
#pragma once

#include <cstdint>
#include <string>

#include "glsl_ops.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/element_type.hpp"
#include "primitive_registry.hpp"

namespace gpgpu::primitives {

enum class HistogramMode {
  SharedCopies = 0,  // GPUs: per-subgroup copies of the bins in shared memory (atomics)
  Private = 1,       // CPU devices: one copy per invocation, plain increments
  Global = 2,        // too many bins for shared memory: atomics on the output
};

struct HistogramShape {
  HistogramMode mode = HistogramMode::SharedCopies;
  int local = 256;
  int copies = 8;  // SharedCopies: copies of the bins (invocations share one per local/copies)
  Loads loads = Loads::Storage;  // how the input is read
  int bins = 256;                // compiled in: the shared arrays' size
  bool strided = false;          // SharedCopies: groups sweep the input together (chunk unused)
  // SharedCopies and Private: the last-group counter sits ahead of `acc` in its block (4
  // storage blocks, 5 binding points are too few for both apart).
  bool merged_counter = false;
  // The float bin's product is `precise` (GLSL ES 3.20): no contraction or reassociation.
  bool precise = true;
};

// Shared memory the kernel of `shape` declares.
std::int64_t histogram_shared_bytes(const HistogramShape& shape);

// Uniforms: bins, lo, scale (float input) or lo_bits (integer input), body_begin,
// body_count (vec4s), chunk (vec4s per group, or per invocation in Private mode), trips,
// edges (scalar head/tail, done by group 0), out_offset, accumulate (SharedCopies and
// Private: one dispatch, see histogram_glsl.cpp). Blocks: input (input_glsl), counts, acc
// (bins + 3 zeros), done_count (a zero); merged_counter: Acc { done_count[4]; acc[] }.
std::string histogram_source(ElementType type, const HistogramShape& shape);

// counts[out_offset + i] = 0 for i < n.
std::string clear_source(int local);
// It with work groups of 256, or as many as the device runs.
KernelSpec clear_kernel(const DeviceInfo& info);

}  // namespace gpgpu::primitives
