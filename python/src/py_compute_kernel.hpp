// The state behind gpgpu.ComputeKernel (shared with the overhead benchmark binding, which
// times the same C++ call without Python in the loop).
#pragma once

#include <memory>
#include <optional>

#include "gpgpu/compute_kernel.hpp"
#include "py_kernel_args.hpp"
#include "py_kernel_common.hpp"

namespace gpgpu::python {

// How items= and groups= size a call.
struct CallSize {
  std::optional<Size3> items, groups;
  bool one_dimensional = false;  // items= was an int: run(args, n)
};

struct PyComputeKernel : PyKernelState<ComputeKernel> {
  // Binds Python values for one run (see py_kernel_args.hpp).
  BoundCall bind(const py::dict& values, const py::object& out, const py::object& items,
                 bool copy) const;
  // items= and groups= checked (ArgumentError for both, or a bad tuple).
  CallSize size_of(const py::object& items, const py::object& groups) const;
  // Runs the C++ kernel on bound args, the GIL released.
  void launch(const Args& args, const py::object& items, const py::object& groups);
  py::object run(const py::dict& values, const py::object& out, const py::object& items,
                 const py::object& groups, bool copy);
};

}  // namespace gpgpu::python
