// gpgpu.Buffer: a device-resident array with the NumPy shape and dtype it was made with, so
// that to_numpy() gives back what from_numpy() took.
#pragma once

#include <memory>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"
#include "py_context.hpp"

namespace gpgpu::python {

namespace py = pybind11;

struct PyBuffer {
  PyBuffer() = default;
  PyBuffer(PyBuffer&&) = default;
  PyBuffer& operator=(PyBuffer&&) = default;
  ~PyBuffer() {
    if (context) context->dispose(std::move(buffer));
  }

  std::shared_ptr<PyContext> context;
  Buffer buffer;
  std::vector<py::ssize_t> shape;  // its product is buffer.size()
};

}  // namespace gpgpu::python
