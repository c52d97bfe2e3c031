// The parallel primitives (gpgpu/primitives.hpp) for NumPy arrays and Buffers:
//
//   gpgpu.reduce(x)                          # sum of a float32/int32/uint32 array or Buffer
//   gpgpu.reduce(x, "max", components=4)     # per component of vec4 elements
//   gpgpu.reduce(x, gpgpu.GlslOp("max(abs(a), abs(b))", "0.0"))
//   gpgpu.reduce(xb, out=totals, out_offset=3)   # into a Buffer, no wait
//   i, v = gpgpu.argmax(x)                   # index of the first maximum and its value
//
// python/gpgpu/__init__.py picks the Context (a Buffer's own, else ctx or the default).
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "py_arrays.hpp"
#include "py_bindings.hpp"
#include "py_buffer.hpp"
#include "py_context.hpp"

namespace gpgpu::python {

namespace {

Operator operator_from(const py::handle& op) {
  if (py::isinstance<GlslOp>(op)) return Operator(op.cast<GlslOp>());
  if (py::isinstance<py::tuple>(op) && py::len(op) == 2) {
    auto t = py::reinterpret_borrow<py::tuple>(op);
    return Operator(GlslOp{t[0].cast<std::string>(), t[1].cast<std::string>()});
  }
  if (py::isinstance<py::str>(op)) {
    Op builtin = Op::Sum;
    if (parse_op(op.cast<std::string>(), builtin)) return Operator(builtin);
  }
  throw ArgumentError(
      "reduce: op must be \"sum\", \"product\", \"min\", \"max\", a "
      "gpgpu.GlslOp or an (expression, identity) tuple; " +
      describe_value(op) + " (" + std::string(py::str(op)) + ") was given");
}

Range range_from(const py::handle& range) {
  if (range.is_none()) return {};
  const auto r = range.cast<std::vector<std::size_t>>();
  if (r.size() != 2) throw ArgumentError("range= takes (first, count)");
  return {r[0], r[1]};
}

// A NumPy array as a temporary Buffer (the primitives work on Buffers; host data is
// uploaded once, straight from the array's memory).
// With copy=True, other dtypes become the element type of their kind (floats float32, signed
// integers int32, unsigned uint32), when no value changes.
std::optional<ElementType> target_for(const py::array& a, bool copy) {
  auto t = element_type_of(a.dtype());
  if (t || !copy) return t;
  switch (a.dtype().kind()) {
    case 'f':
      return ElementType::Float32;
    case 'u':
      return ElementType::Uint32;
    case 'i':
    case 'b':
      return ElementType::Int32;
    default:
      return std::nullopt;
  }
}

PyBuffer upload(const std::shared_ptr<PyContext>& context, const py::array& a, bool copy,
                const char* what) {
  const py::array data = checked_array(a, target_for(a, copy), copy, what);
  PyBuffer b;
  b.context = context;
  b.shape = {static_cast<py::ssize_t>(data.size())};
  const void* p = data.data();
  const auto n = static_cast<std::size_t>(data.size());
  Context& c = context->use();
  py::gil_scoped_release unlocked;
  switch (*element_type_of(data.dtype())) {
    case ElementType::Float32:
      b.buffer = Buffer::from(c, std::span<const float>(static_cast<const float*>(p), n));
      break;
    case ElementType::Int32:
      b.buffer =
          Buffer::from(c, std::span<const std::int32_t>(static_cast<const std::int32_t*>(p), n));
      break;
    case ElementType::Uint32:
      b.buffer =
          Buffer::from(c, std::span<const std::uint32_t>(static_cast<const std::uint32_t*>(p), n));
      break;
  }
  return b;
}

template <class T>
py::object reduce_as(Context& c, const Buffer& in, const Operator& op, int components,
                     Range range) {
  std::vector<T> result;
  {
    py::gil_scoped_release unlocked;
    if (components == 1) {
      result = {reduce<T>(c, in, op, range)};
    } else {
      result = reduce_vector<T>(c, in, components, op, range);
    }
  }
  const py::dtype dtype = dtype_of(gpgpu::element_type_of<T>());
  if (components == 1) return dtype.attr("type")(result[0]);
  py::array values = new_array(gpgpu::element_type_of<T>(), {static_cast<py::ssize_t>(components)});
  std::memcpy(values.mutable_data(), result.data(), result.size() * sizeof(T));
  return values;
}

// gpgpu.reduce: the result on the host (a NumPy scalar, or an array of `components`), or,
// with out= a Buffer, written to out[out_offset...] on the device (returns out, no wait).
py::object reduce_any(const std::shared_ptr<PyContext>& context, const py::object& x,
                      const py::object& op_arg, int components, const py::object& range_arg,
                      const py::object& out, std::size_t out_offset, bool copy) {
  const Operator op = operator_from(op_arg);
  const Range range = range_from(range_arg);
  std::optional<PyBuffer> uploaded;
  if (!py::isinstance<PyBuffer>(x)) {
    if (!py::isinstance<py::array>(x)) {
      throw TypeMismatchError("reduce: x must be a NumPy array or a gpgpu.Buffer; " +
                              describe_value(x) + " was given");
    }
    uploaded = upload(context, py::reinterpret_borrow<py::array>(x), copy, "reduce: x");
  }
  const PyBuffer& in = uploaded ? *uploaded : x.cast<const PyBuffer&>();
  Context& c = context->use();  // the library checks that the Buffers belong to it
  if (!out.is_none()) {
    if (!py::isinstance<PyBuffer>(out)) {
      throw ArgumentError("reduce: out= takes a gpgpu.Buffer (leave it out to get the result)");
    }
    ReduceOptions options;
    options.components = components;
    options.range = range;
    options.out_offset = out_offset;
    Buffer& target = out.cast<PyBuffer&>().buffer;
    py::gil_scoped_release unlocked;
    reduce(c, in.buffer, target, op, options);
    return out;
  }
  switch (in.buffer.element_type()) {
    case ElementType::Float32:
      return reduce_as<float>(c, in.buffer, op, components, range);
    case ElementType::Int32:
      return reduce_as<std::int32_t>(c, in.buffer, op, components, range);
    case ElementType::Uint32:
      return reduce_as<std::uint32_t>(c, in.buffer, op, components, range);
  }
  return py::none();
}

template <class T>
py::tuple extreme_as(Context& c, const Buffer& in, Range range, bool largest) {
  Extreme<T> e;
  {
    py::gil_scoped_release unlocked;
    e = largest ? argmax<T>(c, in, range) : argmin<T>(c, in, range);
  }
  const py::dtype dtype = dtype_of(gpgpu::element_type_of<T>());
  return py::make_tuple(e.index, dtype.attr("type")(e.value));
}

// gpgpu.argmin / argmax: (index, value) of the first extreme (index gpgpu.no_index for an
// empty range or NaNs only), or with out= a uint32 Buffer, the index written there (no wait).
py::object extreme_any(const std::shared_ptr<PyContext>& context, const py::object& x, bool largest,
                       const py::object& range_arg, const py::object& out, std::size_t out_offset,
                       bool copy) {
  const Range range = range_from(range_arg);
  std::optional<PyBuffer> uploaded;
  if (!py::isinstance<PyBuffer>(x)) {
    if (!py::isinstance<py::array>(x)) {
      throw TypeMismatchError(std::string(largest ? "argmax" : "argmin") +
                              ": x must be a NumPy array or a gpgpu.Buffer; " + describe_value(x) +
                              " was given");
    }
    uploaded = upload(context, py::reinterpret_borrow<py::array>(x), copy,
                      largest ? "argmax: x" : "argmin: x");
  }
  const PyBuffer& in = uploaded ? *uploaded : x.cast<const PyBuffer&>();
  Context& c = context->use();
  if (!out.is_none()) {
    if (!py::isinstance<PyBuffer>(out)) throw ArgumentError("out= takes a uint32 gpgpu.Buffer");
    Buffer& target = out.cast<PyBuffer&>().buffer;
    py::gil_scoped_release unlocked;
    if (largest) {
      argmax(c, in.buffer, target, out_offset, range);
    } else {
      argmin(c, in.buffer, target, out_offset, range);
    }
    return out;
  }
  switch (in.buffer.element_type()) {
    case ElementType::Float32:
      return extreme_as<float>(c, in.buffer, range, largest);
    case ElementType::Int32:
      return extreme_as<std::int32_t>(c, in.buffer, range, largest);
    case ElementType::Uint32:
      return extreme_as<std::uint32_t>(c, in.buffer, range, largest);
  }
  return py::none();
}

}  // namespace

void bind_primitives(py::module_& m) {
  py::class_<GlslOp>(
      m, "GlslOp",
      R"doc(A reduction operator in GLSL: an associative expression of a and b, and its identity.

    gpgpu.reduce(x, gpgpu.GlslOp("max(abs(a), abs(b))", "0.0")))doc")
      .def(py::init([](std::string expression, std::string identity) {
             return GlslOp{std::move(expression), std::move(identity)};
           }),
           py::arg("expression"), py::arg("identity"))
      .def_readonly("expression", &GlslOp::expression, "The GLSL combining a and b.")
      .def_readonly("identity", &GlslOp::identity, "The GLSL of the identity element.")
      .def("__repr__", [](const GlslOp& g) {
        return "gpgpu.GlslOp(\"" + g.expression + "\", \"" + g.identity + "\")";
      });
  m.attr("no_index") = no_index;
  m.def("reduce", &reduce_any, py::arg("context"), py::arg("x"), py::arg("op") = "sum",
        py::arg("components") = 1, py::arg("range") = py::none(), py::arg("out") = py::none(),
        py::arg("out_offset") = 0, py::arg("copy") = false,
        "Reduces x (see gpgpu.reduce, which picks the context for you).");
  m.def(
      "argmin",
      [](const std::shared_ptr<PyContext>& c, const py::object& x, const py::object& range,
         const py::object& out, std::size_t offset,
         bool copy) { return extreme_any(c, x, false, range, out, offset, copy); },
      py::arg("context"), py::arg("x"), py::arg("range") = py::none(), py::arg("out") = py::none(),
      py::arg("out_offset") = 0, py::arg("copy") = false);
  m.def(
      "argmax",
      [](const std::shared_ptr<PyContext>& c, const py::object& x, const py::object& range,
         const py::object& out, std::size_t offset,
         bool copy) { return extreme_any(c, x, true, range, out, offset, copy); },
      py::arg("context"), py::arg("x"), py::arg("range") = py::none(), py::arg("out") = py::none(),
      py::arg("out_offset") = 0, py::arg("copy") = false);
  m.def(
      "reduce_error_depth",
      [](PyContext& c, std::size_t n, int components, bool builtin_op) {
        return reduce_error_depth(c.use(), n, components, builtin_op);
      },
      py::arg("context"), py::arg("n"), py::arg("components") = 1, py::arg("builtin_op") = true,
      "The depth d of reduce's summation tree for n elements: |sum - exact| <= d * 2^-24 * "
      "sum |x_i|.");
  m.def(
      "release_primitive_resources", [](PyContext& c) { release_primitive_resources(c.use()); },
      py::arg("context"));
  m.def(
      "primitive_scratch_bytes", [](PyContext& c) { return primitive_scratch_bytes(c.use()); },
      py::arg("context"));
}

}  // namespace gpgpu::python
