// Internal: the GLSL of the reduction kernels (generated per element type, components and
// operator; each variant is compiled once per Context).
#pragma once

#include <cstdint>
#include <string>

#include "glsl_ops.hpp"
#include "gpgpu/element_type.hpp"
#include "gpgpu/primitives.hpp"
#include "reduce_plan.hpp"
#include "subgroup_glsl.hpp"

namespace gpgpu::primitives {

// Built-in (commutative) operators on 1, 2 or 4 components, in one dispatch: vec4 loads,
// `unroll` independent loads per trip, each group's vec4 into `partials`; the last group to
// finish (counted in done_count[0], which it resets) combines them and stores the result.
// Uniforms: body_begin, body_count (vec4s), chunk (vec4s per group; strided: the stride
// between a group's trips), trips, groups, edges (scalar head [x, y) and tail [z, w), done
// by group 0), out_offset (scalars). Input: input_glsl; blocks out_values, partials,
// done_count (t.merged_counter: done_count[4] ahead of partials in one block). With
// subgroups on, groups combine their lanes with subgroup operations.
std::string reduce_vec4_source(ElementType type, int components, Op op, const ReduceTuning& t,
                               const Subgroups& sg, bool strided);

// In-order reduction for any operator and 1..4 components: group g reduces elements
// [g * chunk, (g + 1) * chunk), thread t a contiguous run of per_thread of them, then a
// tree that keeps operand order. Uniforms: first_scalar, count (elements), chunk,
// per_thread, out_offset. Blocks: in1, out_values.
std::string reduce_ordered_source(ElementType type, int components, const Operator& op, int local,
                                  Loads loads);

// Shared memory of the reduction kernels with work groups of `local`, at most (vec4 values).
std::int64_t reduce_shared_need(int local);

// GLSL that combines the shared array `partial[LOCAL]` of `type` into partial[0] with `op`
// (name of the operator function); `ordered` keeps operand order (for non-commutative ops).
std::string shared_tree(int local, const std::string& op, bool ordered);

}  // namespace gpgpu::primitives
