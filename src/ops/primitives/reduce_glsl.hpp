// Internal: the GLSL of the reduction kernels (generated per element type, components and
// operator; each variant is compiled once per Context).
#pragma once

#include <string>

#include "gpgpu/element_type.hpp"
#include "gpgpu/primitives.hpp"

namespace gpgpu::primitives {

// Pass 1 for built-in (commutative) operators on 1, 2 or 4 components: vec4 loads, `unroll`
// independent loads per trip, a work group's result per group. Uniforms: body_begin,
// body_count (vec4s), chunk (vec4s per group), trips, edges (scalar head [x, y) and tail
// [z, w), done by group 0), out_offset (scalars). Blocks: in4, in1 (the same Buffer),
// out_values.
std::string reduce_vec4_source(ElementType type, int components, Op op, int local, int unroll);

// In-order reduction for any operator and 1..4 components: group g reduces elements
// [g * chunk, (g + 1) * chunk), thread t a contiguous run of per_thread of them, then a
// tree that keeps operand order. Uniforms: first_scalar, count (elements), chunk,
// per_thread, out_offset. Blocks: in1, out_values.
std::string reduce_ordered_source(ElementType type, int components, const Operator& op, int local);

// GLSL that combines the shared array `partial[LOCAL]` of `type` into partial[0] with `op`
// (name of the operator function); `ordered` keeps operand order (for non-commutative ops).
std::string shared_tree(int local, const std::string& op, bool ordered);

}  // namespace gpgpu::primitives
