// What the three kernel bindings share: defines from a dict, variables as Python objects.
#pragma once

#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "gpgpu/defines.hpp"
#include "gpgpu/kernel_variable.hpp"

namespace gpgpu::python {

namespace py = pybind11;

// {"TILE": 16, "USE_FMA": None} -> {{"TILE", "16"}, {"USE_FMA", ""}}.
Defines defines_from(const py::object& defines);

// The kernel's variables as a list of gpgpu.KernelVariable.
py::list variable_list(const std::vector<KernelVariable>& variables);

// Registers gpgpu.KernelVariable (called by bind_compute_kernel).
void bind_kernel_variable(py::module_& m);

}  // namespace gpgpu::python
