#include "gl/device_info.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <fmt/format.h>

#include "gl/fence_reach.hpp"
#include "gl/platform.hpp"

namespace gpgpu {

bool DeviceInfo::has_extension(const std::string& name) const {
  return std::find(extensions.begin(), extensions.end(), name) != extensions.end();
}

bool DeviceInfo::has_timer_query() const {
  return has_extension("GL_EXT_disjoint_timer_query");
}

bool DeviceInfo::has_buffer_storage() const {
  return has_extension("GL_EXT_buffer_storage");
}

bool DeviceInfo::has_color_buffer_float() const {
  return has_extension("GL_EXT_color_buffer_float");
}

bool DeviceInfo::has_texture_buffers() const {
  return gl_major > 3 || (gl_major == 3 && gl_minor >= 2) || !texture_buffer_extension().empty();
}

std::string DeviceInfo::texture_buffer_extension() const {
  if (gl_major > 3 || (gl_major == 3 && gl_minor >= 2)) return "";
  for (const char* name : {"GL_EXT_texture_buffer", "GL_OES_texture_buffer"}) {
    if (has_extension(name)) return name;
  }
  return "";
}

bool DeviceInfo::has_subgroup_features(std::uint32_t features) const {
  return subgroup_size > 0 && subgroup_in_compute && (subgroup_features & features) == features;
}

namespace {
// "32 invocations: basic vote arithmetic ballot shuffle ...", or "no".
std::string describe_subgroups(const DeviceInfo& info) {
  if (info.subgroup_size == 0) return "no";
  static constexpr const char* names[] = {"basic",     "vote",    "arithmetic",
                                          "ballot",    "shuffle", "shuffle_relative",
                                          "clustered", "quad",    "partitioned_nv"};
  std::string features;
  for (std::size_t bit = 0; bit < std::size(names); ++bit) {
    if (info.subgroup_features & (1u << bit)) features += std::string(" ") + names[bit];
  }
  return fmt::format("{} invocations{}:{}", info.subgroup_size,
                     info.subgroup_in_compute ? "" : " (not in compute shaders)", features);
}
}  // namespace

std::string DeviceInfo::to_string() const {
  std::string s;
  auto line = [&s](std::string_view key, const auto& value) {
    s += fmt::format("  {:<44} {}\n", key, value);
  };
  s += fmt::format("device {} ({})\n", device_index, device_kind);
  line("vendor", vendor);
  line("renderer", renderer);
  line("GL version", version);
  line("GLSL version", glsl_version);
  line("EGL", egl_vendor + " " + egl_version);
  line("runs shaders on", is_software ? "the CPU (software rasterizer)" : "a GPU");
  line("device-limit profile",
       limit_profile.empty() ? std::string("none (the driver's own limits)") : limit_profile);
  line("compute units", compute_units > 0 ? std::to_string(compute_units) : "unknown");
  line("max texture size", max_texture_size);
  line("max 3D texture size", max_3d_texture_size);
  line("max shader storage block size (bytes)", max_shader_storage_block_size);
  line("max shader storage buffer bindings", max_shader_storage_buffer_bindings);
  line("max storage blocks (compute/vertex/fragment/all)",
       fmt::format("{} / {} / {} / {}", max_compute_shader_storage_blocks,
                   max_vertex_shader_storage_blocks, max_fragment_shader_storage_blocks,
                   max_combined_shader_storage_blocks));
  line("max compute work-group count",
       fmt::format("{} x {} x {}", max_compute_work_group_count[0], max_compute_work_group_count[1],
                   max_compute_work_group_count[2]));
  line("max compute work-group size",
       fmt::format("{} x {} x {}", max_compute_work_group_size[0], max_compute_work_group_size[1],
                   max_compute_work_group_size[2]));
  line("max compute work-group invocations", max_compute_work_group_invocations);
  line("max compute shared memory (bytes)", max_compute_shared_memory_size);
  line("max vertex attributes", max_vertex_attribs);
  line("max transform-feedback interleaved components",
       max_transform_feedback_interleaved_components);
  line("max transform-feedback separate attributes", max_transform_feedback_separate_attribs);
  line("max draw buffers", max_draw_buffers);
  line("max colour attachments", max_color_attachments);
  line("max uniform block size (bytes)", max_uniform_block_size);
  line("max image units", max_image_units);
  line("max texture image units (fragment/vertex)",
       fmt::format("{} / {}", max_texture_image_units, max_vertex_texture_image_units));
  line("timer queries (GL_EXT_disjoint_timer_query)", has_timer_query() ? "yes" : "no");
  line("buffer storage (GL_EXT_buffer_storage)", has_buffer_storage() ? "yes" : "no");
  line("float render targets (GL_EXT_color_buffer_float)", has_color_buffer_float() ? "yes" : "no");
  line("texture buffers (ES 3.2, GL_EXT_texture_buffer)", has_texture_buffers() ? "yes" : "no");
  line("shader loop cap (iterations per invocation)",
       max_loop_iterations == 0
           ? fmt::format("none seen in a loop of {}", loop_probe_iterations)
           : fmt::format("{}{} (longer loops end early, silently)", max_loop_iterations,
                         loop_cap_shared_by_all_loops ? ", shared by all loops" : ""));
  line("work groups as lockstep SIMD vectors of",
       lockstep_width > 0 ? fmt::format("{} invocations", lockstep_width)
                          : (is_software ? "no (not that execution model)" : "not probed (a GPU)"));
  line("work done inside the issuing call",
       is_software ? (work_completes_in_call ? "yes" : "no (queued)") : "not probed (a GPU)");
  const char* local = detail::fences_stay_local_because(*this);
  line("fences order other threads' work",
       local ? fmt::format("no: {} (transfers stay on the context's thread; docs/portability.md)",
                           local)
             : std::string("yes"));
  line("uniform values reach every dispatch",
       uniforms_reach_every_dispatch ? "yes" : "NO (a driver bug; see docs/portability.md)");
  line("reset notification (robustness)", reset_notification ? "yes" : "no");
  line("robust buffer access", robust_buffer_access ? "yes" : "no");
  line("subgroups (GL_KHR_shader_subgroup)", describe_subgroups(*this));
  line("GL extensions", extensions.size());
  s += fmt::format("    {}\n", fmt::join(extensions, " "));
  return s;
}

namespace detail {

namespace {

std::string gl_string(GLenum name) {
  const GLubyte* text = glGetString(name);
  glGetError();
  return text != nullptr ? reinterpret_cast<const char*>(text) : "";
}

std::int64_t gl_integer(GLenum name) {
  GLint64 value = 0;
  glGetInteger64v(name, &value);
  glGetError();  // a limit the driver does not know stays 0 rather than failing the context
  return value;
}

std::int64_t gl_indexed_integer(GLenum name, GLuint index) {
  GLint value = 0;
  glGetIntegeri_v(name, index, &value);
  glGetError();
  return value;
}

// GL_KHR_shader_subgroup's properties, read from the driver (never assumed).
void read_subgroup_properties(DeviceInfo& info) {
  if (!info.has_extension("GL_KHR_shader_subgroup")) return;
  info.subgroup_size = static_cast<int>(gl_integer(GL_SUBGROUP_SIZE_KHR));
  info.subgroup_features =
      static_cast<std::uint32_t>(gl_integer(GL_SUBGROUP_SUPPORTED_FEATURES_KHR));
  info.subgroup_in_compute =
      (gl_integer(GL_SUBGROUP_SUPPORTED_STAGES_KHR) & GL_COMPUTE_SHADER_BIT) != 0;
}

}  // namespace

namespace {

// GL has no query for the number of multiprocessors. Known GPUs by their renderer string
// (the most specific name first), else 0; GPGPU_COMPUTE_UNITS overrides. A CPU device
// counts its hardware threads.
int estimate_compute_units(const std::string& renderer, bool software) {
  if (const char* env = std::getenv("GPGPU_COMPUTE_UNITS"); env != nullptr && *env != '\0') {
    const int units = std::atoi(env);
    if (units > 0) return units;
  }
  if (software) return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  struct Known {
    const char* name;
    int units;
  };
  static constexpr Known known[] = {
      {"h100 pcie", 114}, {"h100 nvl", 132}, {"h100", 132},    {"h200", 132},    {"h800", 132},
      {"gh200", 132},     {"a100", 108},     {"a800", 108},    {"a30", 56},      {"a10", 72},
      {"l40s", 142},      {"l40", 142},      {"l4", 58},       {"v100", 80},     {"t4", 40},
      {"rtx 4090", 128},  {"rtx 4080", 76},  {"rtx 3090", 82}, {"rtx 3080", 68}, {"a6000", 84},
  };
  for (const auto& k : known) {
    if (renderer.find(k.name) != std::string::npos) return k.units;
  }
  return 0;
}

std::string lowercase(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Compute and storage limits (OpenGL ES 3.1).
void read_gles31_limits(DeviceInfo& info) {
  info.max_shader_storage_block_size = gl_integer(GL_MAX_SHADER_STORAGE_BLOCK_SIZE);
  info.max_shader_storage_buffer_bindings = gl_integer(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS);
  for (GLuint i = 0; i < 3; ++i) {
    info.max_compute_work_group_count[i] = gl_indexed_integer(GL_MAX_COMPUTE_WORK_GROUP_COUNT, i);
    info.max_compute_work_group_size[i] = gl_indexed_integer(GL_MAX_COMPUTE_WORK_GROUP_SIZE, i);
  }
  info.max_compute_work_group_invocations = gl_integer(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS);
  info.max_compute_shared_memory_size = gl_integer(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE);
  info.max_image_units = gl_integer(GL_MAX_IMAGE_UNITS);
  info.max_compute_shader_storage_blocks = gl_integer(GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS);
  info.max_combined_shader_storage_blocks = gl_integer(GL_MAX_COMBINED_SHADER_STORAGE_BLOCKS);
  info.max_vertex_shader_storage_blocks = gl_integer(GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS);
  info.max_fragment_shader_storage_blocks = gl_integer(GL_MAX_FRAGMENT_SHADER_STORAGE_BLOCKS);
  info.max_compute_image_uniforms = gl_integer(GL_MAX_COMPUTE_IMAGE_UNIFORMS);
  info.max_compute_texture_image_units = gl_integer(GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS);
  info.max_compute_uniform_components = gl_integer(GL_MAX_COMPUTE_UNIFORM_COMPONENTS);
}

}  // namespace

DeviceInfo read_device_info(const DeviceDescription& device, bool cpu_device) {
  DeviceInfo info;
  info.device_index = device.index;
  info.device_kind = device.kind;
  info.vendor = gl_string(GL_VENDOR);
  info.renderer = gl_string(GL_RENDERER);
  info.version = gl_string(GL_VERSION);
  info.glsl_version = gl_string(GL_SHADING_LANGUAGE_VERSION);
  info.gl_major = static_cast<int>(gl_integer(GL_MAJOR_VERSION));
  info.gl_minor = static_cast<int>(gl_integer(GL_MINOR_VERSION));
  // The CPU runs the shaders where the platform says so (the EGL device's
  // EGL_MESA_device_software): llvmpipe, softpipe, and zink over lavapipe alike.
  info.is_software = cpu_device;

  info.max_texture_size = gl_integer(GL_MAX_TEXTURE_SIZE);
  info.max_3d_texture_size = gl_integer(GL_MAX_3D_TEXTURE_SIZE);
  info.max_array_texture_layers = gl_integer(GL_MAX_ARRAY_TEXTURE_LAYERS);
  // OpenGL ES 3.1's limits; an OpenGL ES 3.0 context (WebGL2) has none of them, and asking
  // would raise GL_INVALID_ENUM (a console warning per query in a browser).
  if (info.gl_major > 3 || info.gl_minor >= 1) read_gles31_limits(info);
  info.max_vertex_attribs = gl_integer(GL_MAX_VERTEX_ATTRIBS);
  info.max_transform_feedback_interleaved_components =
      gl_integer(GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS);
  info.max_transform_feedback_separate_attribs =
      gl_integer(GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_ATTRIBS);
  info.max_transform_feedback_separate_components =
      gl_integer(GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS);
  info.max_draw_buffers = gl_integer(GL_MAX_DRAW_BUFFERS);
  info.max_color_attachments = gl_integer(GL_MAX_COLOR_ATTACHMENTS);
  info.max_renderbuffer_size = gl_integer(GL_MAX_RENDERBUFFER_SIZE);
  info.max_uniform_block_size = gl_integer(GL_MAX_UNIFORM_BLOCK_SIZE);
  info.max_texture_image_units = gl_integer(GL_MAX_TEXTURE_IMAGE_UNITS);
  info.max_vertex_texture_image_units = gl_integer(GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS);
  info.max_combined_texture_image_units = gl_integer(GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS);
  GLint viewport[2] = {0, 0};
  glGetIntegerv(GL_MAX_VIEWPORT_DIMS, viewport);
  glGetError();
  info.max_viewport_dims[0] = viewport[0];
  info.max_viewport_dims[1] = viewport[1];

  info.compute_units = estimate_compute_units(lowercase(info.renderer), info.is_software);

  GLint count = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &count);
  for (GLint i = 0; i < count; ++i) {
    const GLubyte* name = glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i));
    if (name != nullptr) info.extensions.emplace_back(reinterpret_cast<const char*>(name));
  }
  glGetError();
  read_subgroup_properties(info);  // needs the extensions
  // OpenGL ES 3.2's or GL_EXT/OES_texture_buffer's enum: asked only where one of them is.
  if (info.has_texture_buffers()) {
    info.max_texture_buffer_size = gl_integer(GL_MAX_TEXTURE_BUFFER_SIZE);
  }
  return info;
}

ExtensionFunctions load_extension_functions(const DeviceInfo& info) {
  ExtensionFunctions f;
  if (info.has_buffer_storage()) {
    f.buffer_storage =
        reinterpret_cast<PFNGLBUFFERSTORAGEEXTPROC>(platform_proc_address("glBufferStorageEXT"));
  }
  if (info.has_timer_query()) {
    f.query_counter =
        reinterpret_cast<PFNGLQUERYCOUNTEREXTPROC>(platform_proc_address("glQueryCounterEXT"));
    f.get_query_object_ui64v = reinterpret_cast<PFNGLGETQUERYOBJECTUI64VEXTPROC>(
        platform_proc_address("glGetQueryObjectui64vEXT"));
  }
  // glGetGraphicsResetStatus is core in GLES 3.2; 3.1 contexts have the KHR or EXT form.
  for (const char* name :
       {"glGetGraphicsResetStatus", "glGetGraphicsResetStatusKHR", "glGetGraphicsResetStatusEXT"}) {
    if (f.get_graphics_reset_status != nullptr) break;
    f.get_graphics_reset_status =
        reinterpret_cast<PFNGLGETGRAPHICSRESETSTATUSPROC>(platform_proc_address(name));
  }
  if (info.has_extension("GL_KHR_parallel_shader_compile")) {
    f.max_shader_compiler_threads = reinterpret_cast<PFNGLMAXSHADERCOMPILERTHREADSKHRPROC>(
        platform_proc_address("glMaxShaderCompilerThreadsKHR"));
  }
  return f;
}

namespace {
void GL_APIENTRY on_debug_message(GLenum, GLenum type, GLuint, GLenum severity, GLsizei,
                                  const GLchar* message, const void*) {
  if (severity == GL_DEBUG_SEVERITY_HIGH || type == GL_DEBUG_TYPE_ERROR) {
    note_debug_error(message);  // thrown by the check of the call that caused it
  } else if (severity == GL_DEBUG_SEVERITY_MEDIUM) {
    std::fprintf(stderr, "gpgpu: GL debug: %s\n", message);
  }
}
}  // namespace

void enable_debug_output(const DeviceInfo& info) {
  if (info.gl_major == 3 && info.gl_minor < 2) return;  // glDebugMessageCallback is core in 3.2
  glEnable(GL_DEBUG_OUTPUT);
  // Synchronous: the callback runs inside the GL call that caused the message, on its
  // thread, so the message is reported by that call's check.
  glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
  glDebugMessageCallback(on_debug_message, nullptr);
  glGetError();
}

}  // namespace detail
}  // namespace gpgpu
