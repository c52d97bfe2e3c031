// gpgpu.nn's ONNX functions: load_onnx, read_onnx, save_onnx and onnx_bytes, over the same
// gpgpu.nn.Sequential (PyModel, py_nn.hpp) every other part of gpgpu.nn makes and takes.
// gpgpu.nn.load (py_nn_model.cpp) reads .onnx files too, by extension.
//
//   model = gpgpu.nn.load_onnx("cnn.onnx")          # from torch.onnx.export or tf2onnx
//   logits = model.predict(images)                   # NumPy float32 (N, C, H, W)
//   gpgpu.nn.save_onnx(model, "again.onnx")
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "gpgpu/nn/onnx.hpp"
#include "py_nn.hpp"

namespace gpgpu::python {

namespace {

// A model read by `read` (on the Context, without the GIL), on `backend`.
template <class Read>
std::unique_ptr<PyModel> imported(const py::object& ctx, const std::string& backend, Read read) {
  auto context = context_or_default(ctx);
  Context& c = context->use();
  std::optional<nn::Sequential> model;
  {
    py::gil_scoped_release unlocked;
    model.emplace(read(c));
  }
  choose_backend(*model, backend);
  return wrap_model(std::move(context), std::move(*model));
}

std::unique_ptr<PyModel> load_onnx(const std::string& path, const py::object& ctx,
                                   const std::string& backend, bool fold_batchnorm) {
  return imported(ctx, backend, [&](const Context& c) {
    return nn::load_onnx(c, path, {.fold_batchnorm = fold_batchnorm});
  });
}

std::unique_ptr<PyModel> read_onnx(const py::bytes& data, const py::object& ctx,
                                   const std::string& backend, bool fold_batchnorm) {
  const std::string bytes = data;
  return imported(ctx, backend, [&](const Context& c) {
    return nn::read_onnx(c, std::as_bytes(std::span(bytes.data(), bytes.size())), "ONNX bytes",
                         {.fold_batchnorm = fold_batchnorm});
  });
}

void save_onnx(PyModel& p, const std::string& path) {
  const auto& model = p.use();
  py::gil_scoped_release unlocked;
  nn::save_onnx(model, path);
}

py::bytes onnx_bytes(PyModel& p) {
  const auto& model = p.use();
  std::string bytes;
  {
    py::gil_scoped_release unlocked;
    bytes = nn::onnx_bytes(model);
  }
  return py::bytes(bytes);
}

}  // namespace

void bind_nn_onnx(py::module_& m) {
  m.def("load_onnx", &load_onnx, py::arg("path"), py::kw_only(), py::arg("ctx") = py::none(),
        py::arg("backend") = "auto", py::arg("fold_batchnorm") = true,
        R"(Reads an ONNX file (torch.onnx.export, tf2onnx, onnx.helper) as a gpgpu.nn.Sequential.

    model = gpgpu.nn.load_onnx("cnn.onnx")
    model = gpgpu.nn.load_onnx("cnn.onnx", ctx=ctx, backend="cpu", fold_batchnorm=False)
    logits = model.predict(images)        # images: float32 (N, C, H, W)

The model is an ordinary Sequential: it predicts, trains, saves and switches backends like
any other. ctx: a gpgpu.Context (default: gpgpu.default_context()); backend as for
Sequential. fold_batchnorm=False keeps a BatchNormalization after a Conv or Gemm as a layer
of its own (else it is folded into the weights). Raises gpgpu.FormatError for a file that is
not a valid ONNX model and gpgpu.UnsupportedError naming the node, its operator and what is
missing for a graph outside what gpgpu runs (docs/onnx.md). gpgpu.nn.load reads .onnx files
the same way (with the default fold_batchnorm).)");
  m.def("read_onnx", &read_onnx, py::arg("data"), py::kw_only(), py::arg("ctx") = py::none(),
        py::arg("backend") = "auto", py::arg("fold_batchnorm") = true,
        R"(load_onnx from the bytes of a model, e.g. an onnx.ModelProto's serialisation.

    model = gpgpu.nn.read_onnx(onnx_model.SerializeToString())
    model = gpgpu.nn.read_onnx(data, ctx=ctx, backend="compute"))");
  m.def("save_onnx", &save_onnx, py::arg("model"), py::arg("path"),
        R"(Writes a gpgpu.nn.Sequential as an ONNX file (opset 13), atomically.

    gpgpu.nn.save_onnx(model, "out/cnn.onnx")
    # onnxruntime.InferenceSession("out/cnn.onnx") runs it; gpgpu.nn.load reads it back

The normalisation and class names travel as metadata (gpgpu.normalization, gpgpu.classes).
onnx.checker checks the model before it is written.)");
  m.def("onnx_bytes", &onnx_bytes, py::arg("model"),
        R"(The ONNX file save_onnx writes, as bytes.

    proto = onnx.load_from_string(gpgpu.nn.onnx_bytes(model)))");
}

}  // namespace gpgpu::python
