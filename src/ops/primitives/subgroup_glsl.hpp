// Internal: which kernels the primitives run on a Context (subgroup or shared-memory), and the
// small GLSL layer (sg_*) that the subgroup kernels are written on.
//
// Natively the layer is GL_KHR_shader_subgroup. llvmpipe (Mesa 22) has no such extension, so
// for testing the subgroup algorithms there the layer can be emulated: llvmpipe runs a work
// group as SIMD vectors of (SIMD bits / 32) consecutive invocations in lockstep, with
// barriers as switches between vectors, so one vector is exactly a subgroup, and shared
// memory written by its lanes is read back by the same instruction stream in program order.
// That execution model is measured when the Context is made (DeviceInfo::lockstep_width), not
// read from the driver's name: zink over lavapipe, a CPU device too, does not show it.
// The emulation uses that and nothing else (no barriers), so a kernel may call sg_* in
// divergent code as it may call the native functions.
#pragma once

#include <cstdint>
#include <string>

#include "gpgpu/context.hpp"
#include "gpgpu/element_type.hpp"
#include "gpgpu/primitives.hpp"

namespace gpgpu::primitives {

struct Subgroups {
  bool on = false;      // the subgroup kernels run
  bool native = false;  // through GL_KHR_shader_subgroup; else emulated (lockstep CPU devices)
  int size = 0;         // invocations per subgroup: read from the device (or the lockstep width)
};

// The GL_SUBGROUP_FEATURE_*_BIT_KHR bits the subgroup kernels need: basic, vote,
// arithmetic, ballot, shuffle.
std::uint32_t required_subgroup_features();
// The device runs the subgroup kernels natively.
bool native_subgroups(const DeviceInfo& info);
// The subgroup size an emulation would have on this device: the lockstep SIMD width measured
// on a CPU device (8 on llvmpipe with AVX2); 0 elsewhere.
int emulated_subgroup_size(const DeviceInfo& info);

// What PrimitiveTuning::subgroups (filled in: 0 or 1) selects on this device.
Subgroups subgroups_for(const DeviceInfo& info, int subgroups);
// What the Context's tuning selects.
Subgroups subgroups(const Context& ctx);

// A work-group size for the subgroup kernels: `local` rounded up to a multiple of the
// subgroup size (a group holds whole subgroups).
int subgroup_local(int local, const Subgroups& sg);

// Shared memory the layer declares for work groups of `local` invocations (the emulation's
// exchange arrays; none natively).
std::int64_t subgroup_shared_bytes(const Subgroups& sg, int local);

// The layer for work groups of `local` invocations (a multiple of the subgroup size):
// SG_SIZE, SG_COUNT, sg_lane(), sg_index(), sg_ballot(bool) -> uvec4,
// sg_ballot_count(uvec4), sg_ballot_below(uvec4) (set bits of lanes below this one),
// sg_ballot_first(uvec4) (the lowest set lane, SG_SIZE if none),
// sg_any(bool), sg_all(bool), sg_shuffle(uint|int|float, lane). No subgroup barrier: on
// NVIDIA's GL driver subgroupBarrier() is a device-wide memory barrier (docs/primitives-
// internals.md); kernels pass values by shuffles and shared atomics instead. `local` is also
// defined as L if L is not.
std::string subgroup_glsl(const Subgroups& sg, int local);

// NAME_reduce(T), NAME_inclusive(T), NAME_exclusive(T): the built-in operator `op` across the
// subgroup's active lanes, for T = the scalar type of `type`. Needs subgroup_glsl before it.
std::string subgroup_op_glsl(const Subgroups& sg, ElementType type, Op op, const std::string& name);

}  // namespace gpgpu::primitives
