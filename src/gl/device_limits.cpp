// The limits a profile clamps: one table from GL names to DeviceInfo's fields, which the
// clamp, `gpgpu info` and the Python module all read (limits.hpp).
#include "gl/device_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "gpgpu/error.hpp"

namespace gpgpu {

namespace {

// A DeviceInfo field: a plain member, or one element of a 3- or 2-element array member.
struct Field {
  LimitName name;
  std::int64_t DeviceInfo::*scalar = nullptr;
  std::int64_t (DeviceInfo::*triple)[3] = nullptr;
  std::int64_t (DeviceInfo::*pair)[2] = nullptr;
  int index = 0;

  std::int64_t& in(DeviceInfo& info) const {
    if (scalar != nullptr) return info.*scalar;
    if (triple != nullptr) return (info.*triple)[index];
    return (info.*pair)[index];
  }
};

Field plain(std::string_view gl, std::string_view meaning, std::int64_t DeviceInfo::*member) {
  return Field{{gl, meaning}, member};
}
Field element(std::string_view gl, std::string_view meaning, std::int64_t (DeviceInfo::*member)[3],
              int index) {
  return Field{{gl, meaning}, nullptr, member, nullptr, index};
}

const std::vector<Field>& fields() {
  static const std::vector<Field> table = {
      plain("GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS", "invocations in one work group",
            &DeviceInfo::max_compute_work_group_invocations),
      element("GL_MAX_COMPUTE_WORK_GROUP_SIZE_X", "work-group size along x",
              &DeviceInfo::max_compute_work_group_size, 0),
      element("GL_MAX_COMPUTE_WORK_GROUP_SIZE_Y", "work-group size along y",
              &DeviceInfo::max_compute_work_group_size, 1),
      element("GL_MAX_COMPUTE_WORK_GROUP_SIZE_Z", "work-group size along z",
              &DeviceInfo::max_compute_work_group_size, 2),
      element("GL_MAX_COMPUTE_WORK_GROUP_COUNT_X", "work groups in one dispatch along x",
              &DeviceInfo::max_compute_work_group_count, 0),
      element("GL_MAX_COMPUTE_WORK_GROUP_COUNT_Y", "work groups in one dispatch along y",
              &DeviceInfo::max_compute_work_group_count, 1),
      element("GL_MAX_COMPUTE_WORK_GROUP_COUNT_Z", "work groups in one dispatch along z",
              &DeviceInfo::max_compute_work_group_count, 2),
      plain("GL_MAX_COMPUTE_SHARED_MEMORY_SIZE", "bytes of shared memory in one work group",
            &DeviceInfo::max_compute_shared_memory_size),
      plain("GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS", "storage buffers in one compute shader",
            &DeviceInfo::max_compute_shader_storage_blocks),
      plain("GL_MAX_COMBINED_SHADER_STORAGE_BLOCKS", "storage buffers in one program",
            &DeviceInfo::max_combined_shader_storage_blocks),
      plain("GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS", "storage buffers in one vertex shader",
            &DeviceInfo::max_vertex_shader_storage_blocks),
      plain("GL_MAX_FRAGMENT_SHADER_STORAGE_BLOCKS", "storage buffers in one fragment shader",
            &DeviceInfo::max_fragment_shader_storage_blocks),
      plain("GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS", "storage-buffer binding points",
            &DeviceInfo::max_shader_storage_buffer_bindings),
      plain("GL_MAX_SHADER_STORAGE_BLOCK_SIZE", "bytes of one bound storage buffer",
            &DeviceInfo::max_shader_storage_block_size),
      plain("GL_MAX_IMAGE_UNITS", "image units", &DeviceInfo::max_image_units),
      plain("GL_MAX_COMPUTE_IMAGE_UNIFORMS", "images in one compute shader",
            &DeviceInfo::max_compute_image_uniforms),
      plain("GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS", "textures in one compute shader",
            &DeviceInfo::max_compute_texture_image_units),
      plain("GL_MAX_COMPUTE_UNIFORM_COMPONENTS", "uniform components in one compute shader",
            &DeviceInfo::max_compute_uniform_components),
      plain("GL_MAX_TEXTURE_SIZE", "texels along one side of a 2-D texture",
            &DeviceInfo::max_texture_size),
      plain("GL_MAX_3D_TEXTURE_SIZE", "texels along one side of a 3-D texture",
            &DeviceInfo::max_3d_texture_size),
      plain("GL_MAX_ARRAY_TEXTURE_LAYERS", "layers of an array texture",
            &DeviceInfo::max_array_texture_layers),
      plain("GL_MAX_TEXTURE_BUFFER_SIZE", "texels of one buffer texture (samplerBuffer)",
            &DeviceInfo::max_texture_buffer_size),
      plain("GL_MAX_RENDERBUFFER_SIZE", "texels along one side of a render target",
            &DeviceInfo::max_renderbuffer_size),
      Field{{"GL_MAX_VIEWPORT_DIMS_X", "viewport width"},
            nullptr,
            nullptr,
            &DeviceInfo::max_viewport_dims,
            0},
      Field{{"GL_MAX_VIEWPORT_DIMS_Y", "viewport height"},
            nullptr,
            nullptr,
            &DeviceInfo::max_viewport_dims,
            1},
      plain("GL_MAX_TEXTURE_IMAGE_UNITS", "textures in one fragment shader",
            &DeviceInfo::max_texture_image_units),
      plain("GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS", "textures in one vertex shader",
            &DeviceInfo::max_vertex_texture_image_units),
      plain("GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS", "textures in one program",
            &DeviceInfo::max_combined_texture_image_units),
      plain("GL_MAX_VERTEX_ATTRIBS", "vertex attributes", &DeviceInfo::max_vertex_attribs),
      plain("GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS",
            "components captured per vertex, interleaved",
            &DeviceInfo::max_transform_feedback_interleaved_components),
      plain("GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_ATTRIBS", "outputs captured into separate buffers",
            &DeviceInfo::max_transform_feedback_separate_attribs),
      plain("GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS",
            "components of one output captured separately",
            &DeviceInfo::max_transform_feedback_separate_components),
      plain("GL_MAX_DRAW_BUFFERS", "fragment outputs (render targets) at once",
            &DeviceInfo::max_draw_buffers),
      plain("GL_MAX_COLOR_ATTACHMENTS", "colour attachments of a framebuffer",
            &DeviceInfo::max_color_attachments),
      plain("GL_MAX_UNIFORM_BLOCK_SIZE", "bytes of a uniform block",
            &DeviceInfo::max_uniform_block_size),
  };
  return table;
}

const Field* find_field(std::string_view gl_name) {
  for (const auto& f : fields()) {
    if (f.name.gl_name == gl_name) return &f;
  }
  return nullptr;
}

// The extensions of `device` that `profile` has too.
std::vector<std::string> common_extensions(const std::vector<std::string>& device,
                                           const std::vector<std::string>& profile) {
  std::vector<std::string> kept;
  for (const auto& e : device) {
    if (std::find(profile.begin(), profile.end(), e) != profile.end()) kept.push_back(e);
  }
  return kept;
}

void clamp_subgroups(DeviceInfo& info, std::uint32_t profile_features) {
  info.subgroup_features &= profile_features;
  if (info.subgroup_features == 0) {
    info.subgroup_size = 0;
    info.subgroup_in_compute = false;
  }
}

}  // namespace

const std::vector<LimitName>& limit_names() {
  static const std::vector<LimitName> names = [] {
    std::vector<LimitName> list;
    for (const auto& f : fields()) list.push_back(f.name);
    return list;
  }();
  return names;
}

std::int64_t limit_value(const DeviceInfo& info, std::string_view gl_name) {
  const Field* f = find_field(gl_name);
  if (f == nullptr) {
    throw ArgumentError(
        fmt::format("'{}' is not a limit gpgpu reads (gpgpu::limit_names())", gl_name));
  }
  return f->in(const_cast<DeviceInfo&>(info));  // read only
}

DeviceInfo clamp_to_profile(DeviceInfo device, const LimitProfile& profile) {
  for (const auto& limit : profile.limits) {
    const Field* f = find_field(limit.gl_name);
    if (f == nullptr) {
      throw ArgumentError(
          fmt::format("profile {}: '{}' is not a limit gpgpu reads", profile.name, limit.gl_name));
    }
    std::int64_t& value = f->in(device);
    value = std::min(value, limit.value);
  }
  device.extensions = common_extensions(device.extensions, profile.extensions);
  if (device.gl_major == 3 && device.gl_minor > profile.gles_minor) {
    device.gl_minor = profile.gles_minor;
  }
  clamp_subgroups(device,
                  device.has_extension("GL_KHR_shader_subgroup") ? profile.subgroup_features : 0u);
  device.limit_profile = profile.name;
  return device;
}

const LimitProfile& limit_profile(std::string_view name) {
  for (const auto& p : limit_profiles()) {
    if (p.name == name) return p;
  }
  std::vector<std::string> names;
  for (const auto& p : limit_profiles()) names.push_back(p.name);
  throw ArgumentError(
      fmt::format("no device-limit profile '{}'; the profiles are: {} (or "
                  "\"device\" for the driver's own limits)",
                  name, fmt::join(names, ", ")));
}

namespace detail {

std::string requested_profile(const ContextOptions& options) {
  if (!options.limits.empty()) return options.limits;
  const char* env = std::getenv("GPGPU_LIMITS");
  return env != nullptr ? env : "";
}

void apply_limit_profile(DeviceInfo& info, const ContextOptions& options) {
  const std::string name = requested_profile(options);
  if (name.empty() || name == "device") return;
  try {
    info = clamp_to_profile(std::move(info), limit_profile(name));
  } catch (const ArgumentError& e) {
    throw ContextError(fmt::format("{} (ContextOptions::limits or GPGPU_LIMITS)", e.what()));
  }
}

}  // namespace detail
}  // namespace gpgpu
