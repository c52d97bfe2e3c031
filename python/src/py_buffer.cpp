// gpgpu.Buffer: device-resident arrays, so one kernel's output feeds the next with no host
// round trip. from_numpy uploads straight from the array's memory and to_numpy downloads
// straight into a new array's memory (no intermediate copy).
//
//   b = gpgpu.Buffer.from_numpy(ctx, x)     # upload once
//   k.run(x=b, y=c)                         # c is a Buffer too: nothing moves
//   y = c.to_numpy()                        # explicit download, shape and dtype kept
#include <functional>
#include <numeric>
#include <string>

#include "gpgpu/error.hpp"
#include "py_arrays.hpp"
#include "py_bindings.hpp"
#include "py_buffer.hpp"

namespace gpgpu::python {

namespace {

std::vector<py::ssize_t> shape_from(const py::handle& shape) {
  if (py::isinstance<py::int_>(shape)) return {shape.cast<py::ssize_t>()};
  return shape.cast<std::vector<py::ssize_t>>();
}

std::size_t element_count(const std::vector<py::ssize_t>& shape) {
  py::ssize_t n = 1;
  for (auto s : shape) {
    if (s < 0) throw ArgumentError("gpgpu.Buffer: negative extent in shape");
    n *= s;
  }
  return static_cast<std::size_t>(n);
}

PyBuffer make_empty(std::shared_ptr<PyContext> context, const py::object& shape,
                    const py::object& dtype) {
  const ElementType type = element_type_from(dtype, "gpgpu.Buffer dtype");
  PyBuffer b;
  b.shape = shape_from(shape);
  const std::size_t n = element_count(b.shape);
  Context& c = context->use();
  {
    py::gil_scoped_release unlocked;
    b.buffer = Buffer(c, type, n);
  }
  b.context = std::move(context);
  return b;
}

void upload(PyBuffer& b, const py::array& a, std::size_t offset, bool copy) {
  const py::array data = checked_array(a, b.buffer.element_type(), copy, "Buffer.upload");
  b.context->use();
  const void* p = data.data();
  const auto n = static_cast<std::size_t>(data.size());
  py::gil_scoped_release unlocked;
  switch (b.buffer.element_type()) {
    case ElementType::Float32:
      b.buffer.upload(std::span<const float>(static_cast<const float*>(p), n), offset);
      break;
    case ElementType::Int32:
      b.buffer.upload(std::span<const std::int32_t>(static_cast<const std::int32_t*>(p), n),
                      offset);
      break;
    case ElementType::Uint32:
      b.buffer.upload(std::span<const std::uint32_t>(static_cast<const std::uint32_t*>(p), n),
                      offset);
      break;
  }
}

void download_into(const PyBuffer& b, py::array& out, std::size_t offset) {
  b.context->use();
  void* p = out.mutable_data();
  const auto n = static_cast<std::size_t>(out.size());
  py::gil_scoped_release unlocked;
  switch (b.buffer.element_type()) {
    case ElementType::Float32:
      b.buffer.download(std::span<float>(static_cast<float*>(p), n), offset);
      break;
    case ElementType::Int32:
      b.buffer.download(std::span<std::int32_t>(static_cast<std::int32_t*>(p), n), offset);
      break;
    case ElementType::Uint32:
      b.buffer.download(std::span<std::uint32_t>(static_cast<std::uint32_t*>(p), n), offset);
      break;
  }
}

PyBuffer from_numpy(std::shared_ptr<PyContext> context, const py::array& a, const py::object& dtype,
                    bool copy) {
  const auto type = dtype.is_none() ? element_type_of(a.dtype())
                                    : std::optional(element_type_from(dtype, "Buffer.from_numpy"));
  const py::array data = checked_array(a, type, copy, "Buffer.from_numpy");
  PyBuffer b;
  b.shape.assign(data.shape(), data.shape() + data.ndim());
  Context& c = context->use();
  {
    py::gil_scoped_release unlocked;
    b.buffer = Buffer(c, *element_type_of(data.dtype()), static_cast<std::size_t>(data.size()));
  }
  b.context = std::move(context);
  upload(b, data, 0, false);
  return b;
}

py::array to_numpy(const PyBuffer& b) {
  py::array out = new_array(b.buffer.element_type(), b.shape);
  download_into(b, out, 0);
  return out;
}

// Buffer.download(out): fills a caller's array (C-contiguous, the buffer's dtype).
void download(const PyBuffer& b, py::array out, std::size_t offset) {
  if (!out.writeable()) throw ArgumentError("Buffer.download: the array is read-only");
  const py::array checked = checked_array(out, b.buffer.element_type(), false, "Buffer.download");
  download_into(b, out, offset);
}

void set_shape(PyBuffer& b, const py::object& shape) {
  auto s = shape_from(shape);
  if (element_count(s) != b.buffer.size()) {
    throw SizeMismatchError("gpgpu.Buffer: shape " + std::string(py::str(shape)) + " holds " +
                            std::to_string(element_count(s)) + " elements; the buffer has " +
                            std::to_string(b.buffer.size()));
  }
  b.shape = std::move(s);
}

std::string describe_buffer(const PyBuffer& b) {
  if (!b.buffer.valid()) return "<gpgpu.Buffer (released)>";
  std::string s = "<gpgpu.Buffer " + std::string(to_string(b.buffer.element_type())) + " (";
  for (std::size_t i = 0; i < b.shape.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(b.shape[i]);
  }
  return s + (b.shape.size() == 1 ? ",)>" : ")>");
}

}  // namespace

void bind_buffer(py::module_& m) {
  py::class_<PyBuffer>(m, "Buffer", R"(An array that lives on the GPU between kernel runs.

    b = gpgpu.Buffer.from_numpy(ctx, x)        # uploads x (float32, int32 or uint32)
    c = gpgpu.Buffer(ctx, x.shape, np.float32)  # uninitialised
    k.run(x=b, y=c); k2.run(y=c, z=z)           # c feeds k2 with no host copy
    y = c.to_numpy()                            # downloads; shape and dtype as made)")
      .def(py::init(&make_empty), py::arg("context"), py::arg("shape"),
           py::arg("dtype") = py::dtype::of<float>())
      .def_static("from_numpy", &from_numpy, py::arg("context"), py::arg("array"), py::kw_only(),
                  py::arg("dtype") = py::none(), py::arg("copy") = false,
                  "A Buffer holding a copy of `array` (its shape and dtype kept). dtype= "
                  "with copy=True converts the array first.")
      .def("to_numpy", &to_numpy, "Downloads the whole buffer into a new array.")
      .def("upload", &upload, py::arg("array"), py::arg("offset") = 0, py::kw_only(),
           py::arg("copy") = false, "Copies `array` into the buffer from element `offset` on.")
      .def("download", &download, py::arg("out"), py::arg("offset") = 0,
           "Copies elements [offset, offset + out.size) into `out`.")
      .def_property(
          "shape", [](const PyBuffer& b) { return py::tuple(py::cast(b.shape)); }, &set_shape,
          "The NumPy shape to_numpy() gives (settable: same size).")
      .def_property_readonly(
          "dtype", [](const PyBuffer& b) { return dtype_of(b.buffer.element_type()); },
          "The element type: numpy.float32, int32 or uint32.")
      .def_property_readonly(
          "size", [](const PyBuffer& b) { return b.buffer.size(); }, "The number of elements.")
      .def_property_readonly(
          "nbytes", [](const PyBuffer& b) { return b.buffer.bytes(); }, "size * 4.")
      .def_property_readonly(
          "valid", [](const PyBuffer& b) { return b.buffer.valid(); },
          "False once released (binding it then raises ArgumentError).")
      .def_property_readonly(
          "context", [](const PyBuffer& b) { return b.context; }, "The Context it lives on.")
      .def(
          "release",
          [](PyBuffer& b) {
            b.context->use();
            b.buffer.release();
          },
          "Frees the device memory now.")
      .def("__len__", [](const PyBuffer& b) { return b.shape.empty() ? 1 : b.shape[0]; })
      .def("__repr__", &describe_buffer);
}

}  // namespace gpgpu::python
