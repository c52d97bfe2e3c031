// The Python module gpgpu._gpgpu: one bind_* function per concept, called by module.cpp in
// dependency order (errors first, so every later binding can raise them).
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace gpgpu::python {

namespace py = pybind11;

void bind_errors(py::module_& m);
void bind_context(py::module_& m);
void bind_arrays(py::module_& m);
void bind_buffer(py::module_& m);
void bind_texture(py::module_& m);
void bind_compute_kernel(py::module_& m);
void bind_sequence(py::module_& m);
void bind_transform_feedback_kernel(py::module_& m);
void bind_fragment_kernel(py::module_& m);
void bind_gpgpu_js(py::module_& m);
void bind_matmul(py::module_& m);
void bind_primitives(py::module_& m);
void bind_overhead(py::module_& m);
void bind_nn(py::module_& m);     // the submodule gpgpu.nn (py_nn*.cpp)
void bind_earth(py::module_& m);  // the submodule gpgpu.earth (py_earth*.cpp)

}  // namespace gpgpu::python
