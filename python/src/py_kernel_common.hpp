// What the three kernel bindings share: defines from a dict, variables as Python objects, the
// state each Python kernel holds, how it is compiled, and the properties all three have.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "gpgpu/defines.hpp"
#include "gpgpu/kernel_variable.hpp"
#include "py_context.hpp"
#include "py_gpu_timing.hpp"
#include "py_kernel_args.hpp"

namespace gpgpu::python {

namespace py = pybind11;

// {"TILE": 16, "USE_FMA": None} -> {{"TILE", "16"}, {"USE_FMA", ""}}.
Defines defines_from(const py::object& defines);

// The kernel's variables as a list of gpgpu.KernelVariable.
py::list variable_list(const std::vector<KernelVariable>& variables);

// Registers gpgpu.KernelVariable (called by bind_compute_kernel).
void bind_kernel_variable(py::module_& m);

// What a gpgpu.ComputeKernel, FragmentKernel or TransformFeedbackKernel holds: its Context
// and the C++ kernel (ContextOwned), and its variables by name.
template <class Kernel>
struct PyKernelState : ContextOwned<Kernel> {
  VariableTable table;
  bool timing = false;
};

// The constructor of a Python kernel `PyKernel` (a PyKernelState): compiles `source` on the
// context's thread with the GIL released (compiling can take long on llvmpipe).
// `readonly_blocks` names the storage blocks whose arrays are never read back.
template <class PyKernel>
std::unique_ptr<PyKernel> make_py_kernel(std::shared_ptr<PyContext> context,
                                         const std::string& source, const py::object& defines,
                                         const std::string& label,
                                         std::set<std::string> readonly_blocks = {}) {
  auto k = std::make_unique<PyKernel>();
  k->context = std::move(context);
  const Defines d = defines_from(defines);
  Context& c = k->context->use();
  {
    py::gil_scoped_release unlocked;
    k->owned.emplace(c, source, d, label);
  }
  k->table = VariableTable(k->owned->variables(), std::move(readonly_blocks));
  return k;
}

// The properties every Python kernel class has: variables, label, timing and last_gpu_ns.
// `timed` says what a timed run measures ("dispatch", "draws").
template <class PyKernel>
void def_kernel_properties(py::class_<PyKernel>& cls, const std::string& timed) {
  cls.def_property_readonly(
         "variables", [](const PyKernel& k) { return variable_list(k.table.all()); },
         "The kernel's variables as the driver reports them (KernelVariable): what run() binds.")
      .def_property_readonly(
          "label", [](const PyKernel& k) { return k.owned->label(); },
          "The name given at construction (it names the kernel in errors).");
  def_gpu_timing(cls, "run's " + timed);
}

}  // namespace gpgpu::python
