// gpgpu.Context and gpgpu.list_devices(). A Context is held by shared_ptr: every kernel,
// Buffer and Texture made from it keeps it alive.
#include <memory>
#include <string>

#include "py_context.hpp"

#include "gpgpu/error.hpp"
#include "gpgpu/limits.hpp"
#include "py_bindings.hpp"

namespace gpgpu::python {

PyContext::PyContext(const ContextOptions& options)
    : context_(options), owner_(std::this_thread::get_id()) {}

PyContext::~PyContext() {
  std::lock_guard lock(mutex_);
  graveyard_.clear();  // before the Context: they hold GL names of it
}

Context& PyContext::use() {
  if (!on_owner_thread()) {
    throw ContextError(
        "this gpgpu.Context belongs to the thread that made it (an OpenGL ES context is "
        "current on one thread, and a thread that ends while using it keeps it); make a "
        "Context in this thread, or call gpgpu.default_context(), which gives each thread "
        "its own");
  }
  if (has_graves_) collect();
  return context_;
}

void PyContext::collect() {
  std::vector<std::shared_ptr<void>> doomed;
  {
    std::lock_guard lock(mutex_);
    doomed.swap(graveyard_);
    has_graves_ = false;
  }
  doomed.clear();  // on the owner thread: the GL objects are deleted properly
}

std::shared_ptr<PyContext> context_or_default(const py::object& ctx) {
  if (!ctx.is_none()) return ctx.cast<std::shared_ptr<PyContext>>();
  return py::module_::import("gpgpu").attr("default_context")().cast<std::shared_ptr<PyContext>>();
}

namespace {

py::list int_list(const std::int64_t* values, int n) {
  py::list out;
  for (int i = 0; i < n; ++i) out.append(values[i]);
  return out;
}

// DeviceInfo as a plain dict (what `gpgpu info` prints, as data).
py::dict info_dict(const DeviceInfo& i) {
  py::dict d;
  d["vendor"] = i.vendor;
  d["renderer"] = i.renderer;
  d["version"] = i.version;
  d["glsl_version"] = i.glsl_version;
  d["egl_vendor"] = i.egl_vendor;
  d["egl_version"] = i.egl_version;
  d["device_kind"] = i.device_kind;
  d["device_index"] = i.device_index;
  d["gl_version"] = py::make_tuple(i.gl_major, i.gl_minor);
  d["is_software"] = i.is_software;
  d["max_texture_size"] = i.max_texture_size;
  d["max_3d_texture_size"] = i.max_3d_texture_size;
  d["max_array_texture_layers"] = i.max_array_texture_layers;
  d["max_shader_storage_block_size"] = i.max_shader_storage_block_size;
  d["max_shader_storage_buffer_bindings"] = i.max_shader_storage_buffer_bindings;
  d["max_compute_work_group_count"] = int_list(i.max_compute_work_group_count, 3);
  d["max_compute_work_group_size"] = int_list(i.max_compute_work_group_size, 3);
  d["max_compute_work_group_invocations"] = i.max_compute_work_group_invocations;
  d["max_compute_shared_memory_size"] = i.max_compute_shared_memory_size;
  d["max_vertex_attribs"] = i.max_vertex_attribs;
  d["max_transform_feedback_interleaved_components"] =
      i.max_transform_feedback_interleaved_components;
  d["max_transform_feedback_separate_attribs"] = i.max_transform_feedback_separate_attribs;
  d["max_transform_feedback_separate_components"] = i.max_transform_feedback_separate_components;
  d["max_draw_buffers"] = i.max_draw_buffers;
  d["max_color_attachments"] = i.max_color_attachments;
  d["max_renderbuffer_size"] = i.max_renderbuffer_size;
  d["max_uniform_block_size"] = i.max_uniform_block_size;
  d["max_image_units"] = i.max_image_units;
  d["max_texture_image_units"] = i.max_texture_image_units;
  d["max_vertex_texture_image_units"] = i.max_vertex_texture_image_units;
  d["max_combined_texture_image_units"] = i.max_combined_texture_image_units;
  d["max_viewport_dims"] = int_list(i.max_viewport_dims, 2);
  d["has_timer_query"] = i.has_timer_query();
  d["has_buffer_storage"] = i.has_buffer_storage();
  d["has_color_buffer_float"] = i.has_color_buffer_float();
  d["extensions"] = i.extensions;
  d["egl_extensions"] = i.egl_extensions;
  d["limit_profile"] = i.limit_profile;
  py::dict limits;  // every limit a device-limit profile can clamp, by its GL name
  for (const auto& name : limit_names()) {
    limits[py::str(std::string(name.gl_name))] = limit_value(i, name.gl_name);
  }
  d["limits"] = limits;
  return d;
}

py::dict profile_dict(const LimitProfile& p) {
  py::dict out, limits;
  out["name"] = p.name;
  out["device"] = p.device;
  out["source"] = p.source;
  out["gles"] = py::make_tuple(3, p.gles_minor);
  for (const auto& l : p.limits) limits[py::str(l.gl_name)] = l.value;
  out["limits"] = limits;
  out["extensions"] = p.extensions;
  out["subgroup_features"] = p.subgroup_features;
  return out;
}

py::dict device_dict(const DeviceDescription& d) {
  py::dict out;
  out["index"] = d.index;
  out["kind"] = d.kind;
  out["egl_extensions"] = d.egl_extensions;
  out["drm_file"] = d.drm_file;
  out["cuda_device"] = d.cuda_device;
  return out;
}

std::shared_ptr<PyContext> make_context(const std::string& device, bool prefer_gles32, bool debug,
                                        const std::string& limits) {
  ContextOptions options;
  options.device = device;
  options.prefer_gles32 = prefer_gles32;
  options.debug = debug;
  options.limits = limits;
  py::gil_scoped_release unlocked;  // EGL initialisation can take a good part of a second
  return std::make_shared<PyContext>(options);
}

std::string describe_context(const PyContext& p) {
  const Context& c = p.peek();
  if (c.released()) return "<gpgpu.Context (released)>";
  const auto& i = c.info();
  return "<gpgpu.Context " + i.renderer + ", " + i.version + ">";
}

}  // namespace

void bind_context(py::module_& m) {
  py::class_<PyContext, std::shared_ptr<PyContext>>(
      m, "Context", R"(A headless OpenGL ES 3.1+ context on a GPU or on Mesa's llvmpipe.

    ctx = gpgpu.Context()                 # GPGPU_DEVICE, else the first GPU, else llvmpipe
    ctx = gpgpu.Context(device="llvmpipe")  # or "nvidia", "0", "1", ...
    ctx = gpgpu.Context(limits="es31-minimum")  # as if on the smallest ES 3.1 GPU

limits names a device-limit profile (gpgpu.limit_profiles(); default: GPGPU_LIMITS, else
the driver's own limits): every kernel is planned within it, and one over it raises
DeviceLimitError naming the limit.

A Context belongs to the thread that made it: calls from another thread raise ContextError
(gpgpu.default_context() gives each thread its own). Kernels, Buffers and Textures keep their
Context alive. `with gpgpu.Context() as ctx:` releases the GL objects when the block ends.)")
      .def(py::init(&make_context), py::arg("device") = "auto", py::arg("prefer_gles32") = true,
           py::arg("debug") = false, py::arg("limits") = "")
      .def(
          "info", [](const PyContext& c) { return info_dict(c.peek().info()); },
          "The device's names, versions, limits and extensions as a dict.")
      .def(
          "info_text", [](const PyContext& c) { return c.peek().info().to_string(); },
          "The report `gpgpu info` prints.")
      .def(
          "finish",
          [](PyContext& c) {
            Context& context = c.use();
            py::gil_scoped_release unlocked;
            context.finish();
          },
          "Waits until the GPU has finished all submitted work.")
      .def(
          "release", [](PyContext& c) { c.use().release(); },
          "Frees every GL object and the EGL context now; objects made from this Context "
          "raise afterwards.")
      .def_property_readonly(
          "released", [](const PyContext& c) { return c.peek().released(); },
          "True after release() (or leaving a with block).")
      .def_property_readonly(
          "is_software", [](const PyContext& c) { return c.peek().info().is_software; },
          "True on llvmpipe (the CPU runs the shaders).")
      .def_property_readonly(
          "renderer", [](const PyContext& c) { return c.peek().info().renderer; },
          "The GL renderer string, e.g. \"NVIDIA H200/PCIe/SSE2\" or \"llvmpipe (LLVM 15.0.6, "
          "256 bits)\".")
      .def(
          "clear_program_cache", [](PyContext& c) { c.use().clear_program_cache(); },
          "Drops every cached compiled program (kernels keep their own; others recompile).")
      .def_property_readonly(
          "cached_program_count",
          [](const PyContext& c) { return c.peek().cached_program_count(); },
          "How many compiled programs the Context keeps for reuse.")
      .def("__enter__", [](std::shared_ptr<PyContext> c) { return c; })
      .def("__exit__", [](PyContext& c, py::args) { c.use().release(); })
      .def("__repr__", &describe_context);

  m.def(
      "limit_profiles",
      [] {
        py::list out;
        for (const auto& p : limit_profiles()) out.append(profile_dict(p));
        return out;
      },
      R"(The device-limit profiles, as dicts: name, device, source, gles, limits (by GL
name), extensions, subgroup_features.

    [p["name"] for p in gpgpu.limit_profiles()]   # ['es31-minimum', 'rpi5-v3d', ...]
    gpgpu.Context(limits="rpi5-v3d").info()["limits"]["GL_MAX_COMPUTE_SHARED_MEMORY_SIZE"])");

  m.def(
      "list_devices",
      [] {
        py::list out;
        for (const auto& d : list_devices()) out.append(device_dict(d));
        return out;
      },
      "The EGL devices in the order Context(device=\"N\") indexes them, as dicts.");
}

}  // namespace gpgpu::python
