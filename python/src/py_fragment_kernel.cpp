// gpgpu.FragmentKernel: a fragment shader run once per output element, rendering into NumPy
// arrays or Textures (the method of GPGPUtility).
//
//   k = gpgpu.FragmentKernel(ctx, src)
//   c = k.run(A=ta, B=tb, out="C", shape=(m, n))     # a float32 array of shape (m, n)
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "gpgpu/error.hpp"
#include "gpgpu/fragment_kernel.hpp"
#include "py_arrays.hpp"
#include "py_bindings.hpp"
#include "py_context.hpp"
#include "py_kernel_args.hpp"
#include "py_kernel_common.hpp"
#include "py_texture.hpp"

namespace gpgpu::python {

namespace {

using Grid = std::pair<std::size_t, std::size_t>;

struct PyFragmentKernel : PyKernelState<FragmentKernel> {
  // The grid a host output's NumPy shape implies: (rows, cols) or (rows, cols, components).
  std::optional<Grid> grid_of(const std::string& name, const py::handle& value) const;
  std::optional<Grid> grid_from(const py::object& shape, const py::dict& values) const;
  py::object run(const py::dict& values, const py::object& out, const py::object& shape, bool copy);
};

std::optional<Grid> PyFragmentKernel::grid_of(const std::string& name,
                                              const py::handle& value) const {
  const KernelVariable* v = table.find(name);
  const auto u = unwrap(value);
  if (v == nullptr || v->kind != KernelVariable::Kind::Output) return std::nullopt;
  if (py::isinstance<PyTexture>(u.value)) {
    const Texture& t = u.value.cast<const PyTexture&>().texture;
    return Grid{t.rows(), t.cols()};
  }
  if (!py::isinstance<py::array>(u.value)) return std::nullopt;
  auto a = py::reinterpret_borrow<py::array>(u.value);
  const bool with_components = v->components > 1 && a.ndim() == 3 && a.shape(2) == v->components;
  if (a.ndim() == 2 || with_components) {
    return Grid{static_cast<std::size_t>(a.shape(0)), static_cast<std::size_t>(a.shape(1))};
  }
  return std::nullopt;
}

// shape= if given, else the shape of the first Texture or 2-D host output (a 1-D output
// array keeps the 1-D grid of the C++ kernel).
std::optional<Grid> PyFragmentKernel::grid_from(const py::object& shape,
                                                const py::dict& values) const {
  if (!shape.is_none()) {
    const auto s = shape.cast<std::vector<std::size_t>>();
    if (s.size() != 2) throw ArgumentError(owned->label() + ": shape= takes (rows, cols)");
    return Grid{s[0], s[1]};
  }
  for (const auto& [key, value] : values) {
    if (auto g = grid_of(key.cast<std::string>(), value)) return g;
  }
  return std::nullopt;
}

py::object PyFragmentKernel::run(const py::dict& values, const py::object& out,
                                 const py::object& shape, bool copy) {
  const auto grid = grid_from(shape, values);
  OutputSizing sizing;
  sizing.grid = grid;
  BoundCall call = bind_call(table, owned->label(), values, parse_out(out), sizing, copy);
  context->use();
  {
    py::gil_scoped_release unlocked;
    if (grid) {
      owned->run(call.args, grid->first, grid->second);
    } else {
      owned->run(call.args);
    }
  }
  return call.finish();
}

std::unique_ptr<PyFragmentKernel> make_fragment_kernel(std::shared_ptr<PyContext> context,
                                                       const std::string& source,
                                                       const py::object& defines,
                                                       const std::string& label) {
  return make_py_kernel<PyFragmentKernel>(std::move(context), source, defines, label);
}

}  // namespace

void bind_fragment_kernel(py::module_& m) {
  py::class_<PyFragmentKernel> cls(
      m, "FragmentKernel",
      R"(A fragment shader run once per output element (the GPGPUtility method).

    k = gpgpu.FragmentKernel(ctx, """
        uniform sampler2D A; uniform sampler2D B; out float C;
        void main() {
          ivec2 ij = gpgpu_coord();                     // (column, row) of C
          float s = 0.0;
          for (int t = 0; t < textureSize(A, 0).x; ++t)
            s += texelFetch(A, ivec2(t, ij.y), 0).r * texelFetch(B, ivec2(ij.x, t), 0).r;
          C = s; }""")
    c = k.run(A=ta, B=tb, out="C", shape=(m, n))

The output grid: shape=(rows, cols), else the shape of a 2-D output array ((rows, cols) or
(rows, cols, components)), else Texture outputs' shape, else a 1-D grid of the outputs'
length (read element i with gpgpu_index()).)");
  cls.def(py::init(&make_fragment_kernel), py::arg("context"), py::arg("source"),
          py::arg("defines") = py::none(), py::arg("label") = "fragment kernel")
      .def(
          "run",
          [](PyFragmentKernel& k, py::object shape, py::object out, bool copy, py::object args,
             py::kwargs kwargs) { return k.run(merge_values(args, kwargs), out, shape, copy); },
          py::kw_only(), py::arg("shape") = py::none(), py::arg("out") = py::none(),
          py::arg("copy") = false, py::arg("args") = py::none(),
          "Renders one fragment per output element (see ComputeKernel.run for out=, copy= and "
          "args=).")
      .def_property(
          "max_width", [](const PyFragmentKernel& k) { return k.owned->max_width(); },
          [](PyFragmentKernel& k, std::size_t w) { k.owned->set_max_width(w); },
          "The widest row of a 1-D grid (0: the device's limit).")
      .def("__repr__", [](const PyFragmentKernel& k) {
        return "<gpgpu.FragmentKernel '" + k.owned->label() + "'>";
      });
  def_kernel_properties(cls, "draws");
}

}  // namespace gpgpu::python
