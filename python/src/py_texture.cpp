// gpgpu.Texture: 2-D and 3-D textures for samplers, images and render targets, and wrapped
// 1-D arrays. NumPy shapes map directly: a "float" texture of (rows, cols) takes an array of
// that shape; a "vec4" texture of (rows, cols) takes (rows, cols, 4).
#include <string>

#include "gpgpu/error.hpp"
#include "gpgpu/texel_type.hpp"
#include "py_arrays.hpp"
#include "py_bindings.hpp"
#include "py_texture.hpp"

namespace gpgpu::python {

namespace {

std::vector<std::size_t> texture_shape(const py::handle& shape) {
  return shape.cast<std::vector<std::size_t>>();
}

// The NumPy shape of the texture's values: shape (+ components when more than one).
std::vector<py::ssize_t> host_shape(const Texture& t) {
  std::vector<py::ssize_t> s;
  if (t.is_array()) {
    s.push_back(static_cast<py::ssize_t>(t.length()));
  } else {
    for (auto e : t.shape()) s.push_back(static_cast<py::ssize_t>(e));
  }
  if (components(t.texel_type()) > 1) s.push_back(components(t.texel_type()));
  return s;
}

// The texture shape an array implies: its shape without the trailing components axis.
std::vector<std::size_t> shape_of_values(const py::array& a, TexelType type) {
  std::vector<std::size_t> s(a.shape(), a.shape() + a.ndim());
  const auto c = static_cast<std::size_t>(components(type));
  if (c > 1) {
    if (s.empty() || s.back() != c) {
      throw SizeMismatchError("gpgpu.Texture: a " + std::string(to_string(type)) +
                              " texture takes an array whose last axis is " + std::to_string(c) +
                              " (the components); pass shape= for flat data");
    }
    s.pop_back();
  }
  return s;
}

void upload_values(PyTexture& wrapper, const py::array& a) {
  wrapper.context->use();
  Texture& t = wrapper.texture;
  const void* p = a.data();
  const auto n = static_cast<std::size_t>(a.size());
  py::gil_scoped_release unlocked;
  switch (element_type(t.texel_type())) {
    case ElementType::Float32:
      t.upload(std::span<const float>(static_cast<const float*>(p), n));
      break;
    case ElementType::Int32:
      t.upload(std::span<const std::int32_t>(static_cast<const std::int32_t*>(p), n));
      break;
    case ElementType::Uint32:
      t.upload(std::span<const std::uint32_t>(static_cast<const std::uint32_t*>(p), n));
      break;
  }
}

py::array checked_values(const Texture& t, const py::array& a, bool copy, const char* what) {
  return checked_array(a, element_type(t.texel_type()), copy, what);
}

PyTexture make_empty(std::shared_ptr<PyContext> context, const std::string& type,
                     const py::object& shape) {
  const TexelType texel = texel_type_from_name(type);
  const auto s = texture_shape(shape);
  PyTexture t;
  Context& c = context->use();
  {
    py::gil_scoped_release unlocked;
    t.texture = Texture(c, texel, s);
  }
  t.context = std::move(context);
  return t;
}

PyTexture from_numpy(std::shared_ptr<PyContext> context, const std::string& type,
                     const py::array& a, const py::object& shape, bool copy) {
  const TexelType texel = texel_type_from_name(type);
  const auto s = shape.is_none() ? shape_of_values(a, texel) : texture_shape(shape);
  PyTexture t = make_empty(std::move(context), type, py::cast(s));
  upload_values(t, checked_values(t.texture, a, copy, "Texture.from_numpy"));
  return t;
}

PyTexture from_array(std::shared_ptr<PyContext> context, const std::string& type,
                     const py::array& a, std::size_t max_width, bool copy) {
  const TexelType texel = texel_type_from_name(type);
  const auto c = static_cast<std::size_t>(components(texel));
  if (a.size() == 0 || static_cast<std::size_t>(a.size()) % c != 0) {
    throw SizeMismatchError("Texture.from_array: " + std::to_string(a.size()) +
                            " values are not a positive whole number of " +
                            std::string(to_string(texel)) + " texels");
  }
  PyTexture t;
  Context& owner = context->use();
  {
    py::gil_scoped_release unlocked;
    t.texture = Texture::array(owner, texel, static_cast<std::size_t>(a.size()) / c, max_width);
  }
  t.context = std::move(context);
  upload_values(t, checked_values(t.texture, a, copy, "Texture.from_array"));
  return t;
}

py::array to_numpy(const PyTexture& t) {
  t.context->use();
  py::array out = new_array(element_type(t.texture.texel_type()), host_shape(t.texture));
  void* p = out.mutable_data();
  const auto n = static_cast<std::size_t>(out.size());
  py::gil_scoped_release unlocked;
  switch (element_type(t.texture.texel_type())) {
    case ElementType::Float32:
      t.texture.download(std::span<float>(static_cast<float*>(p), n));
      break;
    case ElementType::Int32:
      t.texture.download(std::span<std::int32_t>(static_cast<std::int32_t*>(p), n));
      break;
    case ElementType::Uint32:
      t.texture.download(std::span<std::uint32_t>(static_cast<std::uint32_t*>(p), n));
      break;
  }
  return out;
}

}  // namespace

void bind_texture(py::module_& m) {
  py::class_<PyTexture>(
      m, "Texture",
      R"(A 2-D or 3-D texture of exact 32-bit texels (or a 1-D array wrapped into rows).

    t = gpgpu.Texture.from_numpy(ctx, "float", a)     # a: (rows, cols) float32
    t = gpgpu.Texture.from_numpy(ctx, "vec4", v)      # v: (rows, cols, 4) float32
    t = gpgpu.Texture.from_array(ctx, "float", x)     # 1-D: read with gpgpu_fetch(t, i)
    t = gpgpu.Texture(ctx, "uint", (rows, cols))      # uninitialised (a render target)

Types: float, vec2, vec3, vec4 (sampler2D/3D), int, ivec4 (isampler), uint, uvec4 (usampler).
In GLSL texelFetch(t, ivec2(col, row), 0) reads a[row, col].)")
      .def(py::init(&make_empty), py::arg("context"), py::arg("type"), py::arg("shape"))
      .def_static("from_numpy", &from_numpy, py::arg("context"), py::arg("type"), py::arg("array"),
                  py::arg("shape") = py::none(), py::kw_only(), py::arg("copy") = false,
                  "A texture filled from row-major data; the shape is the array's (without a "
                  "components axis) unless shape= is given.")
      .def_static("from_array", &from_array, py::arg("context"), py::arg("type"), py::arg("array"),
                  py::arg("max_width") = 0, py::kw_only(), py::arg("copy") = false,
                  "A 1-D array of texels wrapped into rows of at most max_width (0: the "
                  "device's limit); kernels read element i with gpgpu_fetch(t, i).")
      .def("to_numpy", &to_numpy, "Downloads the texture (bit-exact).")
      .def(
          "upload",
          [](PyTexture& t, const py::array& a, bool copy) {
            upload_values(t, checked_values(t.texture, a, copy, "Texture.upload"));
          },
          py::arg("array"), py::kw_only(), py::arg("copy") = false, "Replaces the whole contents.")
      .def_property_readonly(
          "type", [](const PyTexture& t) { return std::string(to_string(t.texture.texel_type())); },
          "The texel type: \"float\", \"vec2\", \"vec4\", \"int\", \"uint\", ...")
      .def_property_readonly(
          "shape", [](const PyTexture& t) { return py::tuple(py::cast(t.texture.shape())); },
          "(rows, cols) or (depth, rows, cols) in texels")
      .def_property_readonly(
          "length", [](const PyTexture& t) { return t.texture.length(); },
          "Texels holding data: rows * cols (* depth), or n for a 1-D array.")
      .def_property_readonly(
          "components", [](const PyTexture& t) { return components(t.texture.texel_type()); },
          "Values per texel: 1 to 4.")
      .def_property_readonly(
          "is_array", [](const PyTexture& t) { return t.texture.is_array(); },
          "True for a 1-D array wrapped into rows (from_array).")
      .def_property_readonly(
          "valid", [](const PyTexture& t) { return t.texture.valid(); },
          "False once released (binding it then raises ArgumentError).")
      .def_property_readonly(
          "context", [](const PyTexture& t) { return t.context; }, "The Context it lives on.")
      .def(
          "release",
          [](PyTexture& t) {
            t.context->use();
            t.texture.release();
          },
          "Frees the texture now.")
      .def("__repr__",
           [](const PyTexture& t) { return "<gpgpu.Texture: " + t.texture.describe() + ">"; });
}

}  // namespace gpgpu::python
