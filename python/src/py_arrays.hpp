// NumPy arrays as gpgpu host data: the three element types, the checks that refuse any
// silent conversion, the explicit conversion copy=True asks for, and the direction wrappers
// gpgpu.In / gpgpu.Out / gpgpu.InOut and the layout wrapper gpgpu.row_major.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "gpgpu/arg.hpp"
#include "gpgpu/element_type.hpp"

namespace gpgpu::python {

namespace py = pybind11;

// The numpy module, imported once (a hot path: PyImport_ImportModule costs microseconds).
const py::module_& numpy();

// The element type of a dtype (float32, int32, uint32 in native byte order), if it is one.
std::optional<ElementType> element_type_of(const py::dtype& dtype);
py::dtype dtype_of(ElementType type);
// Parses a dtype-like (np.float32, "float32", "int32", np.dtype("u4")) as an element type;
// throws TypeMismatchError naming `what` for anything else.
ElementType element_type_from(const py::handle& dtype_like, const std::string& what);

// A new C-contiguous array of `shape`, made by numpy.empty. Never py::array(dtype, shape):
// pybind11 computes those strides from the item size it reads out of NumPy's dtype struct,
// and with pybind11 3.1 and NumPy 2.5 (the H100 machine's Python) such arrays came back
// with every element reading as the first, as zero strides would give.
py::array new_array(ElementType type, const std::vector<py::ssize_t>& shape);

// True for a C-contiguous array (of any dtype).
bool is_c_contiguous(const py::array& a);

// True for an array of uint8. By the dtype's type number, never by its item size: pybind11
// before 2.12 reads the item size at NumPy 1's offset in the dtype struct, which NumPy 2
// moved (pybind11 2.10 with NumPy 2.5 read a uint8 dtype's size as other than 1).
bool is_uint8(const py::array& a);

// Checks that `a` holds `expected` elements in C order; with `copy`, returns a C-contiguous
// array of `expected` instead (a copy when needed). Without it, any other dtype or a
// non-contiguous layout throws TypeMismatchError/ArgumentError naming `what` and saying how
// to fix it. `expected` unset: any of the three element types is accepted as it is.
py::array checked_array(const py::array& a, std::optional<ElementType> expected, bool copy,
                        const std::string& what);

// A view of a checked array as an Arg (no copy: the Arg points into the array's memory).
// `writable` gives a mutable span (written back unless access says Read).
Arg array_arg(const py::array& a, bool writable);

// How an array should be bound, as wrapped by gpgpu.In / Out / InOut.
struct Direction {
  py::object value;
  Access access = Access::ReadWrite;
};
// gpgpu.row_major(m): matrix data in C order (gpgpu transposes it for GLSL).
struct RowMajor {
  py::object value;
};

// A Python value with its wrappers peeled off.
struct Unwrapped {
  py::object value;
  std::optional<Access> access;  // from In/Out/InOut
  bool row_major = false;
};
Unwrapped unwrap(py::handle value);

// "a float64 array of shape (3, 4)", "a Python float", ... for messages.
std::string describe_value(py::handle value);

}  // namespace gpgpu::python
