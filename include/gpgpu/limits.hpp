// gpgpu/limits.hpp — device-limit profiles: run as if on a smaller GPU.
//
// gpgpu plans every kernel of its own (work-group sizes, shared-memory tiles, how many
// storage buffers a pass binds, texture sizes, transform-feedback outputs, render targets)
// from the limits the driver reports in DeviceInfo. A profile clamps those limits, and hides
// the optional extensions its device lacks, before anything is planned or compiled, so that
// one machine can show what gpgpu does on another: which features adapt, and which stop
// with a LimitError naming the limit, the kernel's figure and the device's.
//
//   gpgpu::Context ctx({.limits = "es31-minimum"});   // or GPGPU_LIMITS=es31-minimum
//   ctx.info().max_compute_work_group_invocations;    // 128, whatever the GPU allows
//   for (const auto& p : gpgpu::limit_profiles()) std::cout << p.name << "\n";
//
// A profile never raises a limit: each figure is the smaller of the driver's and the
// profile's, and an extension stays only where both have it. What a profile cannot
// emulate is left as the device has it: the subgroup size (a profile can only take
// subgroups away), speed, and the precision of the arithmetic. The profiles and the
// sources of their figures are listed in docs/portability.md (`gpgpu info --profiles`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpgpu/context.hpp"

namespace gpgpu {

// One figure of a profile, by the name of the GL query that reads it.
struct DeviceLimit {
  std::string gl_name;     // "GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS"
  std::int64_t value = 0;  // the profile's figure: the most a device of the profile allows
};

// A named set of limits: the OpenGL ES 3.1 minimums, or what one family of GPUs reports.
struct LimitProfile {
  std::string name;    // as ContextOptions::limits and GPGPU_LIMITS take it
  std::string device;  // what it stands for ("Raspberry Pi 5 (V3D 7.1, Mesa v3d)")
  std::string source;  // where its figures come from
  int gles_minor = 1;  // the OpenGL ES 3.x version its device offers (1 or 2)
  // The limits the profile sets (names from limit_names()); a limit not listed stays the
  // driver's.
  std::vector<DeviceLimit> limits;
  // The optional extensions its device has; every other extension is hidden.
  std::vector<std::string> extensions;
  // GL_KHR_shader_subgroup's features (GL_SUBGROUP_FEATURE_*_BIT_KHR) in compute shaders;
  // 0: no subgroups. The size stays the driver's.
  std::uint32_t subgroup_features = 0;
};

// Every profile gpgpu knows, "es31-minimum" first.
const std::vector<LimitProfile>& limit_profiles();
// The profile called `name`; throws ArgumentError listing the known names.
const LimitProfile& limit_profile(std::string_view name);

// A limit gpgpu reads from the driver: its GL name and what it bounds.
struct LimitName {
  std::string_view gl_name;  // the GL name it is queried by: "GL_MAX_COMPUTE_SHARED_MEMORY_SIZE"
  std::string_view meaning;  // what it bounds, in a few words ("bytes of a uniform block")
};
// Every limit a profile can set, in the order `gpgpu info` prints them.
const std::vector<LimitName>& limit_names();
// The figure `info` holds for a limit of limit_names(); throws ArgumentError for another.
std::int64_t limit_value(const DeviceInfo& info, std::string_view gl_name);

// `device` clamped to `profile`: each limit the smaller of the two, the extensions both have,
// the GLES minor version the lower, subgroup features both have (none leaves the size 0).
// DeviceInfo::limit_profile names the profile.
DeviceInfo clamp_to_profile(DeviceInfo device, const LimitProfile& profile);

}  // namespace gpgpu
