#include "py_kernel_common.hpp"

#include "gpgpu/error.hpp"

namespace gpgpu::python {


Defines defines_from(const py::object& defines) {
  Defines out;
  if (defines.is_none()) return out;
  if (!py::isinstance<py::dict>(defines)) {
    throw ArgumentError("defines= takes a dict such as {\"TILE\": 16, \"USE_FMA\": None}");
  }
  for (const auto& [key, value] : py::reinterpret_borrow<py::dict>(defines)) {
    std::string text;
    if (py::isinstance<py::bool_>(value)) {
      text = value.cast<bool>() ? "1" : "0";
    } else if (!value.is_none()) {
      text = py::str(value);
    }
    out.emplace_back(py::str(key), text);
  }
  return out;
}

py::list variable_list(const std::vector<KernelVariable>& variables) {
  py::list out;
  for (const auto& v : variables) out.append(v);
  return out;
}

void bind_kernel_variable(py::module_& m) {
  py::class_<KernelVariable>(m, "KernelVariable",
                             "One of a kernel's variables, as the driver reports it.")
      .def_readonly("name", &KernelVariable::name,
                    "The name to bind: block name, member name, uniform or in/out name.")
      .def_readonly("alias", &KernelVariable::alias, "a storage block's member name")
      .def_property_readonly(
          "kind", [](const KernelVariable& v) { return std::string(to_string(v.kind)); },
          "\"buffer\", \"uniform\", \"sampler\", \"image\", \"in\" or \"out\".")
      .def_readonly("glsl_type", &KernelVariable::glsl_type,
                    "The GLSL type: \"vec3\", \"mat4\", \"usampler2D\", ...")
      .def_property_readonly(
          "dtype", [](const KernelVariable& v) { return std::string(to_string(v.element)); },
          "The element type arrays bound to it must have: \"float32\", \"int32\" or \"uint32\".")
      .def_readonly("components", &KernelVariable::components,
                    "Scalars per element: 3 for a vec3, 16 for a mat4.")
      .def_readonly("array_size", &KernelVariable::array_size, "0 for a runtime-sized array")
      .def_readonly("host_bindable", &KernelVariable::host_bindable,
                    "False for storage blocks that only take a Buffer.")
      .def("__repr__", [](const KernelVariable& v) {
        std::string s = "<gpgpu.KernelVariable " + std::string(to_string(v.kind)) + " " +
                        v.glsl_type + " " + v.name;
        if (!v.alias.empty()) s += " (" + v.alias + ")";
        if (v.array_size != 1)
          s += v.array_size == 0 ? "[]" : "[" + std::to_string(v.array_size) + "]";
        return s + ">";
      });
}

}  // namespace gpgpu::python
