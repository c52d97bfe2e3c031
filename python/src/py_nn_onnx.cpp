// gpgpu.nn's ONNX functions: load_onnx, read_onnx, save_onnx, onnx_bytes and load (by
// extension), over gpgpu::nn::Sequential models (include/gpgpu/nn/onnx.hpp).
//
//   model = gpgpu.nn.load_onnx(ctx, "cnn.onnx")        # from torch.onnx.export or tf2onnx
//   logits = model.predict(images)                     # NumPy float32 (N, C, H, W)
//   gpgpu.nn.save_onnx(model, "again.onnx")
//
// The models these functions take and give are gpgpu.nn.Sequential objects. This file binds
// a minimal such class (predict, classify, backends, shapes, summary, native save), enough
// to run and test imported models; only wrap_model and model_of know its C++ type, so that
// a fuller gpgpu.nn binding can take its place by changing those two (and dropping
// bind_minimal_model).
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "gpgpu/error.hpp"
#include "gpgpu/nn/onnx.hpp"
#include "gpgpu/nn/serialization.hpp"
#include "py_arrays.hpp"
#include "py_bindings.hpp"
#include "py_context.hpp"

namespace gpgpu::python {

namespace {

namespace nn = gpgpu::nn;

// A model and the Context it runs on, whose GL objects go back to the owner thread.
struct PyModel {
  PyModel(std::shared_ptr<PyContext> c, nn::Sequential m)
      : context(std::move(c)), model(std::move(m)) {}
  PyModel(const PyModel&) = delete;
  PyModel& operator=(const PyModel&) = delete;
  ~PyModel() {
    if (context && model) context->dispose(std::move(*model));
  }
  std::shared_ptr<PyContext> context;
  std::optional<nn::Sequential> model;
};

// The two places that know the Python model type.
py::object wrap_model(std::shared_ptr<PyContext> context, nn::Sequential model) {
  return py::cast(std::make_unique<PyModel>(std::move(context), std::move(model)));
}
PyModel& model_of(const py::object& object) {
  return object.cast<PyModel&>();
}

std::vector<py::ssize_t> extents(const nn::Shape& shape, std::size_t batch) {
  std::vector<py::ssize_t> dims{static_cast<py::ssize_t>(batch)};
  for (auto d : shape.dims()) dims.push_back(static_cast<py::ssize_t>(d));
  return dims;
}

// x as float32 (N, input...) in C order; SizeMismatchError naming both shapes otherwise.
py::array model_input(const nn::Sequential& model, const py::array& x_in, const char* what) {
  const auto& in = model.input_shape();
  bool fits = x_in.ndim() == static_cast<py::ssize_t>(in.rank()) + 1 && x_in.shape(0) > 0;
  for (std::size_t i = 0; fits && i < in.rank(); ++i) {
    fits = x_in.shape(static_cast<py::ssize_t>(i) + 1) == static_cast<py::ssize_t>(in[i]);
  }
  if (!fits) {
    std::string expected = "(batch";
    for (auto d : in.dims()) expected += ", " + std::to_string(d);
    throw SizeMismatchError(std::string(what) + ": the model takes " + expected + ") arrays; " +
                            describe_value(x_in) + " was given");
  }
  return checked_array(x_in, ElementType::Float32, true, what);
}

// The outputs for x, `batch` samples per forward pass, the GIL released meanwhile.
py::array predict(PyModel& m, const py::array& x_in, std::size_t batch) {
  if (batch == 0) throw ArgumentError("predict: batch must be positive");
  Context& ctx = m.context->use();
  nn::Sequential& model = *m.model;
  const py::array x = model_input(model, x_in, "predict");
  const auto n = static_cast<std::size_t>(x.shape(0));
  const std::size_t per_in = model.input_shape().size(), per_out = model.output_shape().size();
  py::array y = new_array(ElementType::Float32, extents(model.output_shape(), n));
  const auto* src = static_cast<const float*>(x.data());
  auto* dst = static_cast<float*>(y.mutable_data());
  {
    py::gil_scoped_release unlocked;
    for (std::size_t first = 0; first < n; first += batch) {
      const std::size_t count = std::min(batch, n - first);
      const auto t = nn::Tensor::from(ctx, model.input_shape().with_batch(count),
                                      std::span<const float>(src + first * per_in, count * per_in));
      const auto out = model.forward(t).to_vector();
      std::memcpy(dst + first * per_out, out.data(), out.size() * sizeof(float));
    }
  }
  return y;
}

py::array classify(PyModel& m, const py::array& x, std::size_t batch) {
  const py::array y = predict(m, x, batch);
  const auto n = static_cast<std::size_t>(y.shape(0));
  const std::size_t width = static_cast<std::size_t>(y.size()) / n;
  py::array classes = new_array(ElementType::Int32, {static_cast<py::ssize_t>(n)});
  const auto* v = static_cast<const float*>(y.data());
  auto* c = static_cast<std::int32_t*>(classes.mutable_data());
  for (std::size_t i = 0; i < n; ++i) {
    c[i] = static_cast<std::int32_t>(std::max_element(v + i * width, v + (i + 1) * width) -
                                     (v + i * width));
  }
  return classes;
}

py::tuple shape_tuple(const nn::Shape& s) {
  py::tuple t(s.rank());
  for (std::size_t i = 0; i < s.rank(); ++i) t[i] = s[i];
  return t;
}

void bind_minimal_model(py::module_& nn_module) {
  py::class_<PyModel>(nn_module, "Sequential", R"(A gpgpu.nn network (what load_onnx gives).

    model = gpgpu.nn.load_onnx(ctx, "cnn.onnx")
    model.set_backend("cpu")               # "compute", "transform-feedback", "cpu", "auto"
    logits = model.predict(images)         # float32 (N, C, H, W) -> (N, classes)
    labels = model.classify(images)        # int32 (N,), the largest output of each
    print(model.summary()))")
      .def("predict", &predict, py::arg("x"), py::kw_only(), py::arg("batch") = 1000,
           R"(The outputs for a batch of samples (evaluation mode), `batch` per pass.

    y = model.predict(np.zeros((8, 1, 28, 28), np.float32))   # (8, 10)

x must be (N, *model.input_shape); other dtypes are converted to float32.)")
      .def("classify", &classify, py::arg("x"), py::kw_only(), py::arg("batch") = 1000,
           R"(The index of the largest output of each sample, as int32.

    labels = model.classify(images)      # images (N, C, H, W) -> (N,))")
      .def(
          "set_backend",
          [](PyModel& m, const std::string& name) {
            m.context->use();
            m.model->set_backend(nn::backend_from_name(name));
          },
          py::arg("name"),
          R"(Chooses the backend: "auto", "cpu", "compute" or "transform-feedback".

    model.set_backend("cpu"))")
      .def_property_readonly(
          "backend",
          [](const PyModel& m) { return std::string(nn::to_string(m.model->backend())); },
          "The backend as set (\"auto\" until set_backend): model.backend == \"cpu\".")
      .def_property_readonly(
          "input_shape", [](const PyModel& m) { return shape_tuple(m.model->input_shape()); },
          "The shape of one sample: x = np.zeros((8, *model.input_shape), np.float32).")
      .def_property_readonly(
          "output_shape", [](const PyModel& m) { return shape_tuple(m.model->output_shape()); },
          "The shape of one output: model.output_shape == (10,) for ten classes.")
      .def_property_readonly(
          "layers",
          [](const PyModel& m) {
            py::list names;
            for (const auto& l : m.model->layers()) names.append(nn::describe(l));
            return names;
          },
          R"(One line per layer: ["conv2d 8 filters 3x3, stride 1, padding 1", "relu", ...].)")
      .def(
          "summary", [](const PyModel& m) { return m.model->summary(); },
          "A table of the layers, their output shapes and parameter counts: print(model.summary())")
      .def(
          "save",
          [](PyModel& m, const std::string& path) {
            m.context->use();
            py::gil_scoped_release unlocked;
            nn::save_model(*m.model, path);
          },
          py::arg("path"),
          R"(Saves in gpgpu's own format (a directory, or a .npz archive).

    model.save("out/model.npz"))");
}

}  // namespace

void bind_nn_onnx(py::module_& nn_module) {
  bind_minimal_model(nn_module);
  nn_module.def(
      "load_onnx",
      [](std::shared_ptr<PyContext> context, const std::string& path, bool fold_batchnorm) {
        Context& ctx = context->use();
        std::optional<nn::Sequential> model;
        {
          py::gil_scoped_release unlocked;
          model.emplace(nn::load_onnx(ctx, path, {.fold_batchnorm = fold_batchnorm}));
        }
        return wrap_model(std::move(context), std::move(*model));
      },
      py::arg("context"), py::arg("path"), py::kw_only(), py::arg("fold_batchnorm") = true,
      R"(Reads an ONNX file (torch.onnx.export, tf2onnx, onnx.helper) as a gpgpu.nn model.

    ctx = gpgpu.Context()
    model = gpgpu.nn.load_onnx(ctx, "cnn.onnx")
    logits = model.predict(images)        # images: float32 (N, C, H, W)

fold_batchnorm=False keeps a BatchNormalization after a Conv or Gemm as a layer of its own
(else it is folded into the weights). Raises gpgpu.FormatError for a file that is not a
valid ONNX model and gpgpu.UnsupportedError naming the node, its operator and what is
missing for a graph outside what gpgpu runs (docs/onnx.md).)");
  nn_module.def(
      "read_onnx",
      [](std::shared_ptr<PyContext> context, const py::bytes& data, bool fold_batchnorm) {
        Context& ctx = context->use();
        const std::string bytes = data;
        std::optional<nn::Sequential> model;
        {
          py::gil_scoped_release unlocked;
          model.emplace(nn::read_onnx(ctx, std::as_bytes(std::span(bytes.data(), bytes.size())),
                                      "ONNX bytes", {.fold_batchnorm = fold_batchnorm}));
        }
        return wrap_model(std::move(context), std::move(*model));
      },
      py::arg("context"), py::arg("data"), py::kw_only(), py::arg("fold_batchnorm") = true,
      R"(load_onnx from the bytes of a model, e.g. an onnx.ModelProto's serialisation.

    model = gpgpu.nn.read_onnx(ctx, onnx_model.SerializeToString()))");
  nn_module.def(
      "save_onnx",
      [](const py::object& model, const std::string& path) {
        PyModel& m = model_of(model);
        m.context->use();
        py::gil_scoped_release unlocked;
        nn::save_onnx(*m.model, path);
      },
      py::arg("model"), py::arg("path"),
      R"(Writes a gpgpu.nn model as an ONNX file (opset 13), atomically.

    gpgpu.nn.save_onnx(model, "out/cnn.onnx")
    # onnxruntime.InferenceSession("out/cnn.onnx") runs it; load_onnx reads it back)");
  nn_module.def(
      "onnx_bytes",
      [](const py::object& model) {
        PyModel& m = model_of(model);
        m.context->use();
        std::string bytes;
        {
          py::gil_scoped_release unlocked;
          bytes = nn::onnx_bytes(*m.model);
        }
        return py::bytes(bytes);
      },
      py::arg("model"),
      R"(The ONNX file save_onnx writes, as bytes.

    proto = onnx.load_from_string(gpgpu.nn.onnx_bytes(model)))");
  nn_module.def(
      "load",
      [](std::shared_ptr<PyContext> context, const std::string& path) {
        Context& ctx = context->use();
        std::optional<nn::Sequential> model;
        {
          py::gil_scoped_release unlocked;
          model.emplace(nn::load_any(ctx, path));
        }
        return wrap_model(std::move(context), std::move(*model));
      },
      py::arg("context"), py::arg("path"),
      R"(A model from a file: load_onnx for .onnx, else gpgpu's own format (a directory or .npz).

    model = gpgpu.nn.load(ctx, "model.onnx")     # or "out/model", "model.npz")");
}

}  // namespace gpgpu::python
