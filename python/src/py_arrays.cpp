#include "py_arrays.hpp"

#include <cstdint>
#include <limits>
#include <span>

#include "gpgpu/error.hpp"
#include "py_bindings.hpp"

namespace gpgpu::python {

namespace {

// NumPy's type numbers for the three element types on this platform, read once (plain ints:
// a static py::dtype would outlive the interpreter).
struct TypeNumbers {
  int float32 = py::dtype::of<float>().num();
  int int32 = py::dtype::of<std::int32_t>().num();
  int uint32 = py::dtype::of<std::uint32_t>().num();
};
const TypeNumbers& type_numbers() {
  static const TypeNumbers numbers;
  return numbers;
}

bool native_byte_order(char order) {
  return order == '=' || order == '|' || order == '<';
}

std::string shape_text(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(a.shape(i));
  }
  return s + (a.ndim() == 1 ? ",)" : ")");
}

std::string strides_text(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(a.strides(i));
  }
  return s + (a.ndim() == 1 ? ",)" : ")");
}

std::string numpy_name(ElementType t) {
  return "np." + std::string(to_string(t));
}

// Whether every value of an integer array lies in [lo, hi] (compared as Python ints, so
// uint64 values beyond int64 compare correctly).
bool values_fit(const py::array& a, std::int64_t lo, std::int64_t hi) {
  if (a.size() == 0) return true;
  const py::object smallest = a.attr("min")(), largest = a.attr("max")();
  return !(smallest < py::int_(lo)) && !(largest > py::int_(hi));
}

// The explicit conversion copy=True asks for: any float dtype to float32; integers to int32 or
// uint32 when every value fits. Anything else (floats to integers, values out of range,
// complex, objects) still throws, since the result would be wrong rather than rounded.
py::array converted(const py::array& a, ElementType target, const std::string& what) {
  const char kind = a.dtype().kind();
  const bool integer_source = kind == 'i' || kind == 'u' || kind == 'b';
  bool ok = false;
  if (target == ElementType::Float32) {
    ok = kind == 'f' || integer_source;
  } else if (integer_source) {
    ok = target == ElementType::Int32 ? values_fit(a, std::numeric_limits<std::int32_t>::min(),
                                                   std::numeric_limits<std::int32_t>::max())
                                      : values_fit(a, 0, std::numeric_limits<std::uint32_t>::max());
  }
  if (!ok) {
    throw TypeMismatchError(what + ": cannot convert " + describe_value(a) + " to " +
                            std::string(to_string(target)) +
                            " without changing its values; convert it yourself");
  }
  return numpy().attr("ascontiguousarray")(a, dtype_of(target));
}

}  // namespace

const py::module_& numpy() {
  // Never destroyed: a static py::object would be released after the interpreter is gone.
  static const auto* module = new py::module_(py::module_::import("numpy"));
  return *module;
}

std::optional<ElementType> element_type_of(const py::dtype& dtype) {
  if (!native_byte_order(dtype.byteorder())) return std::nullopt;
  const int num = dtype.num();
  const auto& n = type_numbers();
  if (num == n.float32) return ElementType::Float32;
  if (num == n.int32) return ElementType::Int32;
  if (num == n.uint32) return ElementType::Uint32;
  return std::nullopt;
}

py::dtype dtype_of(ElementType type) {
  switch (type) {
    case ElementType::Float32:
      return py::dtype::of<float>();
    case ElementType::Int32:
      return py::dtype::of<std::int32_t>();
    case ElementType::Uint32:
      return py::dtype::of<std::uint32_t>();
  }
  return py::dtype::of<float>();
}

ElementType element_type_from(const py::handle& dtype_like, const std::string& what) {
  py::dtype dtype;
  try {
    dtype = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype_like));
  } catch (const py::error_already_set&) {
    throw TypeMismatchError(what + ": " + std::string(py::str(dtype_like)) +
                            " is not a dtype; use np.float32, np.int32 or np.uint32");
  }
  if (auto t = element_type_of(dtype)) return *t;
  throw TypeMismatchError(what + ": dtype " + std::string(py::str(dtype)) +
                          " is not one gpgpu moves; use np.float32, np.int32 or np.uint32");
}

py::array new_array(ElementType type, const std::vector<py::ssize_t>& shape) {
  return numpy().attr("empty")(py::cast(shape), dtype_of(type));
}

bool is_c_contiguous(const py::array& a) {
  return (a.flags() & py::array::c_style) != 0;
}

bool is_uint8(const py::array& a) {
  return a.dtype().num() == py::dtype::of<std::uint8_t>().num();
}

py::array checked_array(const py::array& a, std::optional<ElementType> expected, bool copy,
                        const std::string& what) {
  const auto actual = element_type_of(a.dtype());
  const bool type_ok = actual && (!expected || *expected == *actual);
  if (type_ok && is_c_contiguous(a)) return a;
  if (!type_ok) {
    const ElementType target = expected ? *expected : ElementType::Float32;
    if (copy && expected) return converted(a, target, what);
    if (expected) {
      throw TypeMismatchError(what + ": the kernel declares " + std::string(to_string(target)) +
                              " data but " + describe_value(a) + " was given; convert it with " +
                              ".astype(" + numpy_name(target) + ") or pass copy=True");
    }
    throw TypeMismatchError(what + ": " + describe_value(a) +
                            " was given; gpgpu moves float32, int32 and uint32 arrays");
  }
  if (copy) return numpy().attr("ascontiguousarray")(a);
  throw ArgumentError(what + ": the array is not C-contiguous (shape " + shape_text(a) +
                      ", strides " + strides_text(a) +
                      "); pass np.ascontiguousarray(x) or copy=True to copy it");
}

Arg array_arg(const py::array& array, bool writable) {
  py::array a = array;  // mutable_data() is not const in pybind11 2.10
  const auto n = static_cast<std::size_t>(a.size());
  switch (*element_type_of(a.dtype())) {
    case ElementType::Float32:
      if (writable) return Arg(std::span<float>(static_cast<float*>(a.mutable_data()), n));
      return Arg(std::span<const float>(static_cast<const float*>(a.data()), n));
    case ElementType::Int32:
      if (writable)
        return Arg(std::span<std::int32_t>(static_cast<std::int32_t*>(a.mutable_data()), n));
      return Arg(std::span<const std::int32_t>(static_cast<const std::int32_t*>(a.data()), n));
    case ElementType::Uint32:
      if (writable) {
        return Arg(std::span<std::uint32_t>(static_cast<std::uint32_t*>(a.mutable_data()), n));
      }
      return Arg(std::span<const std::uint32_t>(static_cast<const std::uint32_t*>(a.data()), n));
  }
  throw Error("unreachable element type");
}

Unwrapped unwrap(py::handle value) {
  Unwrapped u;
  u.value = py::reinterpret_borrow<py::object>(value);
  if (py::isinstance<py::array>(value)) return u;  // the common case, without type lookups
  for (int depth = 0; depth < 8; ++depth) {
    if (py::isinstance<Direction>(u.value)) {
      const auto& d = u.value.cast<const Direction&>();
      if (!u.access) u.access = d.access;
      u.value = d.value;
    } else if (py::isinstance<RowMajor>(u.value)) {
      u.row_major = true;
      u.value = u.value.cast<const RowMajor&>().value;
    } else {
      break;
    }
  }
  return u;
}

std::string describe_value(py::handle value) {
  if (py::isinstance<py::array>(value)) {
    auto a = py::reinterpret_borrow<py::array>(value);
    const std::string dtype = py::str(a.dtype());
    const bool vowel = !dtype.empty() && std::string("aeio").find(dtype[0]) != std::string::npos;
    return (vowel ? "an " : "a ") + dtype + " array of shape " + shape_text(a);
  }
  return "a Python " + std::string(py::str(py::type::handle_of(value).attr("__name__")));
}

void bind_arrays(py::module_& m) {
  py::class_<Direction>(m, "Direction",
                        "An array with an explicit direction: made by gpgpu.In, gpgpu.Out and "
                        "gpgpu.InOut.")
      .def_readonly("value", &Direction::value, "The array (or Buffer) wrapped.")
      .def_property_readonly(
          "access",
          [](const Direction& d) {
            return d.access == Access::Read ? "in" : d.access == Access::Write ? "out" : "inout";
          },
          "\"in\" (uploaded only), \"out\" (written back only) or \"inout\" (both).")
      .def("__repr__", [](const Direction& d) {
        const char* name = d.access == Access::Read    ? "In"
                           : d.access == Access::Write ? "Out"
                                                       : "InOut";
        return "gpgpu." + std::string(name) + "(" + describe_value(d.value) + ")";
      });
  py::class_<RowMajor>(m, "RowMajor", "Matrix data in C order; made by gpgpu.row_major.")
      .def_readonly("value", &RowMajor::value, "The matrix data wrapped (C order).");
  m.def(
      "In",
      [](py::object v) {
        return Direction{std::move(v), Access::Read};
      },
      py::arg("array"),
      "Binds an array as an input only: uploaded, never written back (even if writable).");
  m.def(
      "Out",
      [](py::object v) {
        return Direction{std::move(v), Access::Write};
      },
      py::arg("array"),
      "Binds an array as an output only: not uploaded (the kernel must write every element "
      "you read afterwards), written back after the run.");
  m.def(
      "InOut",
      [](py::object v) {
        return Direction{std::move(v), Access::ReadWrite};
      },
      py::arg("array"),
      "Binds an array as uploaded and written back (the default for a "
      "writable array bound to a storage block the kernel may write).");
  m.def(
      "row_major", [](py::object v) { return RowMajor{std::move(v)}; }, py::arg("matrices"),
      "Marks matrix data as row-major (C order, m[row][col]); GLSL matrices are "
      "column-major, so gpgpu transposes each matrix while binding it.");
}

}  // namespace gpgpu::python
