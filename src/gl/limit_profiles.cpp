// The device-limit profiles (gpgpu/limits.hpp): their figures and where each comes from.
// docs/portability.md prints the same table, with the sources' file and line.
#include "gpgpu/limits.hpp"

namespace gpgpu {

namespace {

// GL_SUBGROUP_FEATURE_*_BIT_KHR.
constexpr std::uint32_t basic = 0x1, vote = 0x2, arithmetic = 0x4, ballot = 0x8, shuffle = 0x10,
                        shuffle_relative = 0x20, clustered = 0x40, quad = 0x80;

LimitProfile es31_minimum() {
  return {
      .name = "es31-minimum",
      .device = "the smallest OpenGL ES 3.1 device the specification allows",
      .source =
          "OpenGL ES 3.1 specification (2016-11-03), tables 20.40-20.48 "
          "(implementation-dependent minimums); no optional extensions",
      .gles_minor = 1,
      .limits = {{"GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS", 128},
                 {"GL_MAX_COMPUTE_WORK_GROUP_SIZE_X", 128},
                 {"GL_MAX_COMPUTE_WORK_GROUP_SIZE_Y", 128},
                 {"GL_MAX_COMPUTE_WORK_GROUP_SIZE_Z", 64},
                 {"GL_MAX_COMPUTE_WORK_GROUP_COUNT_X", 65535},
                 {"GL_MAX_COMPUTE_WORK_GROUP_COUNT_Y", 65535},
                 {"GL_MAX_COMPUTE_WORK_GROUP_COUNT_Z", 65535},
                 {"GL_MAX_COMPUTE_SHARED_MEMORY_SIZE", 16384},
                 {"GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS", 4},
                 {"GL_MAX_COMBINED_SHADER_STORAGE_BLOCKS", 4},
                 {"GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS", 0},
                 {"GL_MAX_FRAGMENT_SHADER_STORAGE_BLOCKS", 0},
                 {"GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS", 4},
                 {"GL_MAX_SHADER_STORAGE_BLOCK_SIZE", std::int64_t{1} << 27},
                 {"GL_MAX_IMAGE_UNITS", 4},
                 {"GL_MAX_COMPUTE_IMAGE_UNIFORMS", 4},
                 {"GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS", 16},
                 {"GL_MAX_COMPUTE_UNIFORM_COMPONENTS", 512},
                 {"GL_MAX_TEXTURE_SIZE", 2048},
                 {"GL_MAX_3D_TEXTURE_SIZE", 256},
                 {"GL_MAX_ARRAY_TEXTURE_LAYERS", 256},
                 {"GL_MAX_RENDERBUFFER_SIZE", 2048},
                 {"GL_MAX_VIEWPORT_DIMS_X", 2048},
                 {"GL_MAX_VIEWPORT_DIMS_Y", 2048},
                 {"GL_MAX_TEXTURE_IMAGE_UNITS", 16},
                 {"GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS", 16},
                 {"GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS", 48},
                 {"GL_MAX_VERTEX_ATTRIBS", 16},
                 {"GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS", 64},
                 {"GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_ATTRIBS", 4},
                 {"GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS", 4},
                 {"GL_MAX_DRAW_BUFFERS", 4},
                 {"GL_MAX_COLOR_ATTACHMENTS", 4},
                 {"GL_MAX_UNIFORM_BLOCK_SIZE", 16384}},
      .extensions = {},
      .subgroup_features = 0,
  };
}

// What a Mesa driver reports (Mesa 25.x, 2025): the figures every profile below shares
// unless it says otherwise. Mesa gives half of a driver's storage-buffer slots to atomic
// counters when the hardware has none of its own (all five drivers here), so the GL counts
// are half the drivers' own (st_extensions.c, st_init_limits).
std::vector<DeviceLimit> mesa_limits(std::int64_t invocations, std::int64_t shared,
                                     std::int64_t ssbo_compute, std::int64_t ssbo_vertex,
                                     std::int64_t ssbo_fragment, std::int64_t ssbo_combined) {
  return {{"GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS", invocations},
          {"GL_MAX_COMPUTE_SHARED_MEMORY_SIZE", shared},
          {"GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS", ssbo_compute},
          {"GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS", ssbo_vertex},
          {"GL_MAX_FRAGMENT_SHADER_STORAGE_BLOCKS", ssbo_fragment},
          {"GL_MAX_COMBINED_SHADER_STORAGE_BLOCKS", ssbo_combined},
          {"GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS", ssbo_combined},
          {"GL_MAX_VERTEX_ATTRIBS", 16},
          {"GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_ATTRIBS", 4}};
}

// `base` with `more` appended.
std::vector<DeviceLimit> with(std::vector<DeviceLimit> base, std::vector<DeviceLimit> more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

// Optional extensions every one of these Mesa drivers exposes at OpenGL ES 3.1+.
std::vector<std::string> mesa_extensions(std::vector<std::string> more) {
  std::vector<std::string> list = {"GL_EXT_color_buffer_float",      "GL_EXT_buffer_storage",
                                   "GL_KHR_parallel_shader_compile", "GL_EXT_texture_buffer",
                                   "GL_OES_texture_buffer",          "GL_KHR_debug"};
  list.insert(list.end(), more.begin(), more.end());
  return list;
}

LimitProfile rpi5_v3d() {
  return {
      .name = "rpi5-v3d",
      .device = "Raspberry Pi 5: VideoCore VII (V3D 7.1), Mesa's v3d driver",
      .source =
          "Mesa 25.x src/gallium/drivers/v3d/v3d_screen.c, src/broadcom/common/"
          "v3d_limits.h; timer queries left out (they need the kernel's v3d CPU queue, "
          "Linux 6.8+)",
      .gles_minor = 1,
      .limits = with(mesa_limits(256, 32768, 16, 0, 16, 16),
                     {{"GL_MAX_COMPUTE_WORK_GROUP_SIZE_X", 256},
                      {"GL_MAX_COMPUTE_WORK_GROUP_SIZE_Y", 256},
                      {"GL_MAX_COMPUTE_WORK_GROUP_SIZE_Z", 256},
                      {"GL_MAX_COMPUTE_WORK_GROUP_COUNT_X", 65535},
                      {"GL_MAX_COMPUTE_WORK_GROUP_COUNT_Y", 65535},
                      {"GL_MAX_COMPUTE_WORK_GROUP_COUNT_Z", 65535},
                      {"GL_MAX_SHADER_STORAGE_BLOCK_SIZE", std::int64_t{1} << 27},
                      {"GL_MAX_COMPUTE_IMAGE_UNIFORMS", 32},
                      {"GL_MAX_TEXTURE_SIZE", 4096},
                      {"GL_MAX_RENDERBUFFER_SIZE", 4096},
                      {"GL_MAX_VIEWPORT_DIMS_X", 4096},
                      {"GL_MAX_VIEWPORT_DIMS_Y", 4096},
                      {"GL_MAX_3D_TEXTURE_SIZE", 4096},
                      {"GL_MAX_ARRAY_TEXTURE_LAYERS", 2048},
                      {"GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS", 4},
                      {"GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS", 64},
                      {"GL_MAX_DRAW_BUFFERS", 8},
                      {"GL_MAX_COLOR_ATTACHMENTS", 8},
                      {"GL_MAX_UNIFORM_BLOCK_SIZE", 65536},
                      {"GL_MAX_TEXTURE_IMAGE_UNITS", 24},
                      {"GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS", 24},
                      {"GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS", 24}}),
      .extensions = mesa_extensions({}),
      .subgroup_features = 0,
  };
}

LimitProfile mali_g610_panfrost() {
  return {
      .name = "mali-g610-panfrost",
      .device = "Arm Mali-G610 (Valhall, e.g. RK3588), Mesa's panfrost driver on panthor",
      .source =
          "Mesa 25.x src/gallium/drivers/panfrost/pan_screen.c, pan_device.h (textures "
          "8192 as in Mesa 24.x, the smaller of the two releases); "
          "src/panfrost/lib/kmod/panthor_kmod.c",
      .gles_minor = 1,
      .limits = with(mesa_limits(256, 32768, 8, 0, 8, 8),
                     {{"GL_MAX_COMPUTE_WORK_GROUP_SIZE_X", 256},
                      {"GL_MAX_COMPUTE_WORK_GROUP_SIZE_Y", 256},
                      {"GL_MAX_COMPUTE_WORK_GROUP_SIZE_Z", 256},
                      {"GL_MAX_COMPUTE_WORK_GROUP_COUNT_X", 65535},
                      {"GL_MAX_COMPUTE_WORK_GROUP_COUNT_Y", 65535},
                      {"GL_MAX_COMPUTE_WORK_GROUP_COUNT_Z", 65535},
                      {"GL_MAX_SHADER_STORAGE_BLOCK_SIZE", std::int64_t{1} << 27},
                      {"GL_MAX_COMPUTE_IMAGE_UNIFORMS", 32},
                      {"GL_MAX_TEXTURE_SIZE", 8192},
                      {"GL_MAX_RENDERBUFFER_SIZE", 8192},
                      {"GL_MAX_VIEWPORT_DIMS_X", 8192},
                      {"GL_MAX_VIEWPORT_DIMS_Y", 8192},
                      {"GL_MAX_3D_TEXTURE_SIZE", 8192},
                      {"GL_MAX_ARRAY_TEXTURE_LAYERS", 2048},
                      {"GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS", 64},
                      {"GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS", 64},
                      {"GL_MAX_DRAW_BUFFERS", 8},
                      {"GL_MAX_COLOR_ATTACHMENTS", 8},
                      {"GL_MAX_UNIFORM_BLOCK_SIZE", 65536},
                      {"GL_MAX_TEXTURE_IMAGE_UNITS", 32},
                      {"GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS", 32},
                      {"GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS", 32}}),
      .extensions = mesa_extensions({"GL_EXT_disjoint_timer_query"}),
      .subgroup_features = 0,
  };
}

LimitProfile adreno_freedreno() {
  return {
      .name = "adreno-6xx-freedreno",
      .device = "Qualcomm Adreno 6xx/7xx (A615 and up), Mesa's freedreno driver",
      .source =
          "Mesa 25.x src/gallium/drivers/freedreno/freedreno_screen.c, a6xx/fd6_screen.c, "
          "src/freedreno/common/freedreno_devices.py (32 KB of shared memory; A605-A612 "
          "and A702 have 16 KB)",
      .gles_minor = 2,
      .limits = with(mesa_limits(1024, 32768, 16, 16, 16, 80),
                     {{"GL_MAX_COMPUTE_WORK_GROUP_SIZE_X", 1024},
                      {"GL_MAX_COMPUTE_WORK_GROUP_SIZE_Y", 1024},
                      {"GL_MAX_COMPUTE_WORK_GROUP_SIZE_Z", 64},
                      {"GL_MAX_COMPUTE_WORK_GROUP_COUNT_X", 65535},
                      {"GL_MAX_COMPUTE_WORK_GROUP_COUNT_Y", 65535},
                      {"GL_MAX_COMPUTE_WORK_GROUP_COUNT_Z", 65535},
                      {"GL_MAX_SHADER_STORAGE_BLOCK_SIZE", std::int64_t{1} << 27},
                      {"GL_MAX_COMPUTE_IMAGE_UNIFORMS", 32},
                      {"GL_MAX_TEXTURE_SIZE", 16384},
                      {"GL_MAX_3D_TEXTURE_SIZE", 2048},
                      {"GL_MAX_ARRAY_TEXTURE_LAYERS", 2048},
                      {"GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS", 64},
                      {"GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS", 64},
                      {"GL_MAX_DRAW_BUFFERS", 8},
                      {"GL_MAX_COLOR_ATTACHMENTS", 8},
                      {"GL_MAX_UNIFORM_BLOCK_SIZE", 65536},
                      {"GL_MAX_TEXTURE_IMAGE_UNITS", 16},
                      {"GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS", 16},
                      {"GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS", 16}}),
      .extensions = mesa_extensions({"GL_EXT_disjoint_timer_query"}),
      .subgroup_features = 0,
  };
}

LimitProfile intel_xe_iris() {
  return {
      .name = "intel-xe-iris",
      .device = "Intel Gen12 / Xe-LP / Xe-HPG integrated and Arc GPUs, Mesa's iris driver",
      .source =
          "Mesa 25.x src/gallium/drivers/iris/iris_screen.c, iris_screen.h, iris_context.h "
          "(storage blocks of 2^27 bytes, as early 25.x releases report)",
      .gles_minor = 2,
      .limits = with(mesa_limits(1024, 65536, 16, 16, 16, 80),
                     {{"GL_MAX_COMPUTE_WORK_GROUP_SIZE_X", 1024},
                      {"GL_MAX_COMPUTE_WORK_GROUP_SIZE_Y", 1024},
                      {"GL_MAX_COMPUTE_WORK_GROUP_SIZE_Z", 1024},
                      {"GL_MAX_SHADER_STORAGE_BLOCK_SIZE", std::int64_t{1} << 27},
                      {"GL_MAX_COMPUTE_IMAGE_UNIFORMS", 32},
                      {"GL_MAX_TEXTURE_SIZE", 16384},
                      {"GL_MAX_3D_TEXTURE_SIZE", 2048},
                      {"GL_MAX_ARRAY_TEXTURE_LAYERS", 2048},
                      {"GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS", 16},
                      {"GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS", 64},
                      {"GL_MAX_DRAW_BUFFERS", 8},
                      {"GL_MAX_COLOR_ATTACHMENTS", 8},
                      {"GL_MAX_UNIFORM_BLOCK_SIZE", 65536},
                      {"GL_MAX_TEXTURE_IMAGE_UNITS", 32},
                      {"GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS", 32},
                      {"GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS", 32}}),
      .extensions = mesa_extensions({"GL_EXT_disjoint_timer_query"}),
      .subgroup_features = 0,
  };
}

LimitProfile amd_rdna_radeonsi() {
  return {
      .name = "amd-rdna-radeonsi",
      .device = "AMD RDNA (gfx10, gfx11), Mesa's radeonsi driver",
      .source =
          "Mesa 25.x src/gallium/drivers/radeonsi/si_get.c, si_state.h, si_shader.h; "
          "GL_KHR_shader_subgroup since Mesa 24.3 (64-wide; the size stays the "
          "device's own under the profile)",
      .gles_minor = 2,
      .limits = with(mesa_limits(1024, 65536, 16, 16, 16, 80),
                     {{"GL_MAX_COMPUTE_WORK_GROUP_SIZE_X", 1024},
                      {"GL_MAX_COMPUTE_WORK_GROUP_SIZE_Y", 1024},
                      {"GL_MAX_COMPUTE_WORK_GROUP_SIZE_Z", 1024},
                      {"GL_MAX_COMPUTE_WORK_GROUP_COUNT_Y", 65535},
                      {"GL_MAX_COMPUTE_WORK_GROUP_COUNT_Z", 65535},
                      {"GL_MAX_COMPUTE_IMAGE_UNIFORMS", 16},
                      {"GL_MAX_TEXTURE_SIZE", 16384},
                      {"GL_MAX_3D_TEXTURE_SIZE", 8192},
                      {"GL_MAX_ARRAY_TEXTURE_LAYERS", 8192},
                      {"GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS", 128},
                      {"GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS", 128},
                      {"GL_MAX_DRAW_BUFFERS", 8},
                      {"GL_MAX_COLOR_ATTACHMENTS", 8},
                      {"GL_MAX_TEXTURE_IMAGE_UNITS", 32},
                      {"GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS", 32},
                      {"GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS", 32}}),
      .extensions = mesa_extensions({"GL_EXT_disjoint_timer_query", "GL_KHR_shader_subgroup"}),
      .subgroup_features =
          basic | vote | arithmetic | ballot | shuffle | shuffle_relative | clustered | quad,
  };
}

}  // namespace

const std::vector<LimitProfile>& limit_profiles() {
  static const std::vector<LimitProfile> profiles = {es31_minimum(),       rpi5_v3d(),
                                                     mali_g610_panfrost(), adreno_freedreno(),
                                                     intel_xe_iris(),      amd_rdna_radeonsi()};
  return profiles;
}

}  // namespace gpgpu
