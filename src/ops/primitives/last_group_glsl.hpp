// Internal: "the last work group to finish does the rest", which turns a second dispatch into
// the tail of the first (reduce, histogram, the Onesweep histogram).
#pragma once

#include <string>

namespace gpgpu::primitives {

// Needs a coherent block with `uint done_count[]` (zero between calls; the last group resets
// it). bool last_group(): called by every invocation of every group in uniform control flow;
// true in the last group to get there, to which the writes every group made before the call
// are visible.
extern const char* const last_group_glsl;
// `kernel` with LAST_GROUP replaced by last_group_glsl.
std::string with_last_group(std::string kernel);

}  // namespace gpgpu::primitives
