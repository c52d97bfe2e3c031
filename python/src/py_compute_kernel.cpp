// gpgpu.ComputeKernel: a GLSL compute shader run over NumPy arrays and Buffers bound by name.
//
//   k = gpgpu.ComputeKernel(ctx, src)
//   k.run(x=x, y=y, alpha=2.0)           # y written back in place
//   y2 = k.run(x=x, y=y, alpha=2.0, out="y")   # y unchanged, the result returned
#include <memory>
#include <optional>
#include <string>

#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "py_bindings.hpp"
#include "py_compute_kernel.hpp"
#include "py_glsl_qualifiers.hpp"
#include "py_kernel_args.hpp"
#include "py_kernel_common.hpp"

namespace gpgpu::python {

namespace {

Size3 size3_from(const py::handle& value, const char* what) {
  if (py::isinstance<py::int_>(value)) return {value.cast<std::size_t>(), 1, 1};
  const auto t = value.cast<std::vector<std::size_t>>();
  if (t.empty() || t.size() > 3) {
    throw ArgumentError(std::string(what) + "= takes an int or a tuple of 1 to 3 ints");
  }
  Size3 s;
  s.x = t[0];
  if (t.size() > 1) s.y = t[1];
  if (t.size() > 2) s.z = t[2];
  return s;
}

std::unique_ptr<PyComputeKernel> make_compute_kernel(std::shared_ptr<PyContext> context,
                                                     const std::string& source,
                                                     const py::object& defines,
                                                     const std::string& label) {
  return make_py_kernel<PyComputeKernel>(std::move(context), source, defines, label,
                                         readonly_storage_blocks(source));
}

}  // namespace

BoundCall PyComputeKernel::bind(const py::dict& values, const py::object& out,
                                const py::object& items, bool copy) const {
  OutputSizing sizing;
  if (!items.is_none() && py::isinstance<py::int_>(items)) sizing.items = items.cast<std::size_t>();
  return bind_call(table, owned->label(), values, parse_out(out), sizing, copy);
}

CallSize PyComputeKernel::size_of(const py::object& items, const py::object& groups) const {
  CallSize s;
  if (!items.is_none()) s.items = size3_from(items, "items");
  if (!groups.is_none()) s.groups = size3_from(groups, "groups");
  if (s.items && s.groups) {
    throw ArgumentError(owned->label() + ": give items= or groups=, not both");
  }
  s.one_dimensional = s.items && py::isinstance<py::int_>(items);
  return s;
}

void PyComputeKernel::launch(const Args& args, const py::object& items, const py::object& groups) {
  const CallSize s = size_of(items, groups);
  context->use();
  py::gil_scoped_release unlocked;
  if (s.groups) {
    owned->run_groups(args, *s.groups);
  } else if (s.one_dimensional) {
    owned->run(args, s.items->x);
  } else if (s.items) {
    owned->run(args, *s.items);
  } else {
    owned->run(args);
  }
}

py::object PyComputeKernel::run(const py::dict& values, const py::object& out,
                                const py::object& items, const py::object& groups, bool copy) {
  BoundCall call = bind(values, out, items, copy);
  launch(call.args, items, groups);
  return call.finish();
}

void bind_compute_kernel(py::module_& m) {
  bind_kernel_variable(m);
  py::class_<PyComputeKernel> cls(
      m, "ComputeKernel",
      R"(A GLSL compute shader you run over NumPy arrays and Buffers, bound by name.

    k = gpgpu.ComputeKernel(ctx, """
        layout(local_size_x = 128) in;
        layout(std430, binding = 0) readonly buffer X { float x[]; };
        layout(std430, binding = 1) buffer Y { float y[]; };
        uniform float alpha;
        void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] += alpha * x[i]; }""")
    k.run(x=x, y=y, alpha=2.0)        # y (writable float32) is updated in place

gpgpu adds #version, precisions, gpgpu_index() and gpgpu_count. Arrays must have the declared
element type (float32, int32, uint32) and be C-contiguous, or pass copy=True to convert them.)");
  cls.def(py::init(&make_compute_kernel), py::arg("context"), py::arg("source"),
          py::arg("defines") = py::none(), py::arg("label") = "compute kernel")
      .def(
          "run",
          [](PyComputeKernel& k, py::object items, py::object groups, py::object out, bool copy,
             py::object args, py::kwargs kwargs) {
            return k.run(merge_values(args, kwargs), out, items, groups, copy);
          },
          py::kw_only(), py::arg("items") = py::none(), py::arg("groups") = py::none(),
          py::arg("out") = py::none(), py::arg("copy") = false, py::arg("args") = py::none(),
          R"(Runs the kernel with the keyword arguments bound to its variables by name.

items: the number of invocations (an int, or a 2-/3-D tuple); default: the common length of
  the bound arrays. groups: a tuple of work groups instead.
out: a name or list of names whose results are returned as new arrays (allocated when not
  given; a given array is then left unchanged).
copy: convert arrays of other dtypes or layouts (a copy), and copy results back into them.
args: a dict of further arguments (for variables named items, groups, out, copy or args).
Returns None, or the array(s) out= asks for.)")
      .def_property_readonly(
          "readonly_blocks",
          [](const PyComputeKernel& k) {
            return std::vector<std::string>(k.table.readonly_names().begin(),
                                            k.table.readonly_names().end());
          },
          "Block and member names the source declares readonly: arrays bound to them are never "
          "read back.")
      .def_property_readonly(
          "local_size",
          [](const PyComputeKernel& k) {
            const auto s = k.owned->local_size();
            return py::make_tuple(s[0], s[1], s[2]);
          },
          "The work-group size the shader declares: (x, y, z).")
      .def_property_readonly(
          "context", [](const PyComputeKernel& k) { return k.context; },
          "The Context it was compiled on.")
      .def("__repr__", [](const PyComputeKernel& k) {
        return "<gpgpu.ComputeKernel '" + k.owned->label() + "'>";
      });
  def_kernel_properties(cls, "dispatch");
}

}  // namespace gpgpu::python
