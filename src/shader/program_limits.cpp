#include "shader/program_limits.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "shader/shared_memory.hpp"

namespace gpgpu::detail {

namespace {

// "" on a device's own limits; " under the device-limit profile es31-minimum" otherwise.
std::string under_profile(const DeviceInfo& info) {
  return info.limit_profile.empty()
             ? std::string()
             : fmt::format(" under the device-limit profile {}", info.limit_profile);
}

// Throws DeviceLimitError when `needed` exceeds `allowed`. `what` reads "needs {needed} {what}".
void require(const DeviceInfo& info, const std::string& label, std::int64_t needed,
             std::int64_t allowed, const char* limit, const std::string& what) {
  if (needed <= allowed) return;
  throw DeviceLimitError(fmt::format("{} needs {} {}; this device allows {} ({}{})", label, needed,
                                     what, allowed, limit, under_profile(info)),
                         limit, needed, allowed);
}

// The stages a variable is used in. Mesa (22.3, llvmpipe and zink) reports no stage for a
// storage block that a compute shader only writes: such a variable counts in every stage
// of the program, as a smaller device would count it at least in the one that uses it.
unsigned used_in(unsigned stages, unsigned program_stages) {
  return stages != 0 ? stages : program_stages;
}

std::int64_t blocks_in(const ProgramInterface& pi, unsigned stage, unsigned program_stages) {
  std::int64_t n = 0;
  for (const auto& b : pi.storage_blocks) {
    n += (used_in(b.stages, program_stages) & stage) != 0 ? 1 : 0;
  }
  return n;
}

// Samplers (or images) a stage uses, counting every element of an array.
std::int64_t opaque_in(const ProgramInterface& pi, unsigned stage, unsigned program_stages,
                       bool images) {
  std::int64_t n = 0;
  for (const auto& u : pi.uniforms) {
    const bool counted = images ? u.type.is_image : u.type.is_sampler;
    if (counted && (used_in(u.stages, program_stages) & stage) != 0) n += u.array_size;
  }
  return n;
}

unsigned program_stages(const std::vector<ShaderStage>& stages) {
  unsigned bits = 0;
  for (const auto& s : stages) {
    bits |= s.type == GL_COMPUTE_SHADER  ? kComputeStage
            : s.type == GL_VERTEX_SHADER ? kVertexStage
                                         : kFragmentStage;
  }
  return bits;
}

void check_work_group(const ProgramInterface& pi, const DeviceInfo& info,
                      const std::string& label) {
  const std::int64_t invocations =
      std::int64_t{pi.local_size[0]} * pi.local_size[1] * pi.local_size[2];
  require(info, label, invocations, info.max_compute_work_group_invocations,
          "GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS",
          fmt::format("invocations in a work group ({} x {} x {})", pi.local_size[0],
                      pi.local_size[1], pi.local_size[2]));
  static constexpr const char* axis_limit[] = {"GL_MAX_COMPUTE_WORK_GROUP_SIZE_X",
                                               "GL_MAX_COMPUTE_WORK_GROUP_SIZE_Y",
                                               "GL_MAX_COMPUTE_WORK_GROUP_SIZE_Z"};
  static constexpr const char* axis_name[] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    require(info, label, pi.local_size[a], info.max_compute_work_group_size[a], axis_limit[a],
            fmt::format("invocations along {} in a work group (local_size_{})", axis_name[a],
                        axis_name[a]));
  }
}

void check_storage(const ProgramInterface& pi, unsigned stages, const DeviceInfo& info,
                   const std::string& label) {
  require(info, label, blocks_in(pi, kComputeStage, stages), info.max_compute_shader_storage_blocks,
          "GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS", "storage buffers in a compute shader");
  require(info, label, blocks_in(pi, kVertexStage, stages), info.max_vertex_shader_storage_blocks,
          "GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS", "storage buffers in a vertex shader");
  require(info, label, blocks_in(pi, kFragmentStage, stages),
          info.max_fragment_shader_storage_blocks, "GL_MAX_FRAGMENT_SHADER_STORAGE_BLOCKS",
          "storage buffers in a fragment shader");
  require(info, label, static_cast<std::int64_t>(pi.storage_blocks.size()),
          info.max_combined_shader_storage_blocks, "GL_MAX_COMBINED_SHADER_STORAGE_BLOCKS",
          "storage buffers in one program");
  for (const auto& b : pi.storage_blocks) {
    require(info, label, std::int64_t{b.binding} + 1, info.max_shader_storage_buffer_bindings,
            "GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS",
            fmt::format("storage-buffer binding points (block {} is at binding {})", b.name,
                        b.binding));
  }
}

void check_opaque(const ProgramInterface& pi, unsigned stages, const DeviceInfo& info,
                  const std::string& label) {
  require(info, label, opaque_in(pi, kComputeStage, stages, true), info.max_compute_image_uniforms,
          "GL_MAX_COMPUTE_IMAGE_UNIFORMS", "images in a compute shader");
  require(info, label, opaque_in(pi, kComputeStage, stages, false),
          info.max_compute_texture_image_units, "GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS",
          "textures in a compute shader");
  require(info, label, opaque_in(pi, kVertexStage, stages, false),
          info.max_vertex_texture_image_units, "GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS",
          "textures in a vertex shader");
  require(info, label, opaque_in(pi, kFragmentStage, stages, false), info.max_texture_image_units,
          "GL_MAX_TEXTURE_IMAGE_UNITS", "textures in a fragment shader");
}

void check_shared_memory(const std::vector<ShaderStage>& stages, const DeviceInfo& info,
                         const std::string& label) {
  for (const auto& stage : stages) {
    if (stage.type != GL_COMPUTE_SHADER) continue;
    const auto bytes = shared_memory_bytes(stage.source);
    if (!bytes) continue;  // declarations beyond the estimate: the driver alone decides
    require(info, label, *bytes, info.max_compute_shared_memory_size,
            "GL_MAX_COMPUTE_SHARED_MEMORY_SIZE", "bytes of shared memory");
  }
}

}  // namespace

void check_program_fits(const ProgramInterface& pi, const std::vector<ShaderStage>& stages,
                        const DeviceInfo& info, const std::string& label) {
  const bool compute = pi.local_size[0] > 0;
  if (compute) check_work_group(pi, info, label);
  check_storage(pi, program_stages(stages), info, label);
  check_opaque(pi, program_stages(stages), info, label);
  // The driver checks its own shared-memory limit when it links; only a profile's smaller
  // one needs the estimate from the source.
  if (compute && !info.limit_profile.empty()) check_shared_memory(stages, info, label);
}

}  // namespace gpgpu::detail
