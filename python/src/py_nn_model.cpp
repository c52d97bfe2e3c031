// gpgpu.nn.Sequential (building, inspecting, parameters, backends, saving) and the module's
// load, from_json and builtin.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "gpgpu/nn/onnx.hpp"
#include "py_nn.hpp"

namespace gpgpu::python {

void choose_backend(nn::Sequential& model, const std::string& backend, std::size_t threads) {
  nn::BackendOptions options = model.backend_options();
  options.threads = threads;
  model.set_backend(nn::backend_from_name(backend), options);
}

std::unique_ptr<PyModel> wrap_model(std::shared_ptr<PyContext> context, nn::Sequential model) {
  auto p = std::make_unique<PyModel>();
  p->context = std::move(context);
  p->owned.emplace(std::move(model));
  return p;
}

namespace {

nn::Shape shape_from(const py::handle& object, const char* what) {
  std::vector<std::size_t> dims;
  for (const auto& d : object) {
    const auto v = d.cast<long long>();
    if (v <= 0) throw ArgumentError(fmt::format("{}: extents must be positive", what));
    dims.push_back(static_cast<std::size_t>(v));
  }
  if (dims.empty() || dims.size() > 3) {
    throw ArgumentError(fmt::format("{}: give (C, H, W) for images or (F,) for features; got {}",
                                    what, py::repr(object).cast<std::string>()));
  }
  return nn::Shape(std::move(dims));
}

py::tuple shape_tuple(const nn::Shape& s) {
  py::tuple t(s.rank());
  for (std::size_t i = 0; i < s.rank(); ++i) t[i] = s[i];
  return t;
}

std::unique_ptr<PyModel> make_sequential(const py::object& input_shape, const py::iterable& layers,
                                         const py::object& ctx, const std::string& backend,
                                         std::size_t threads, const py::object& seed) {
  auto context = context_or_default(ctx);
  nn::Sequential model(context->use(), shape_from(input_shape, "Sequential: input_shape"));
  for (const auto& l : layers) model.add(layer_from(l));
  choose_backend(model, backend, threads);
  if (!seed.is_none()) model.initialize(seed.cast<std::uint64_t>());
  return wrap_model(std::move(context), std::move(model));
}

py::dict parameters_of(PyModel& p) {
  auto& model = p.use();
  const auto values = model.parameter_values();
  py::dict out;
  for (const auto& info : model.parameters()) {
    std::vector<py::ssize_t> shape(info.shape.dims().begin(), info.shape.dims().end());
    py::array a = new_array(ElementType::Float32, shape);
    std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(info.offset), info.shape.size(),
                static_cast<float*>(a.mutable_data()));
    out[py::str(info.key())] = a;
  }
  return out;
}

void set_parameters(PyModel& p, const py::dict& arrays) {
  auto& model = p.use();
  auto values = model.parameter_values();
  std::size_t matched = 0;
  for (const auto& info : model.parameters()) {
    const std::string key = info.key();
    if (!arrays.contains(key)) {
      throw ArgumentError("set_parameters: no array for '" + key +
                          "' (the keys are parameters().keys())");
    }
    const py::array a = checked_array(py::array(arrays[key.c_str()]), ElementType::Float32, false,
                                      "set_parameters: " + key);
    std::vector<std::size_t> shape(a.shape(), a.shape() + a.ndim());
    if (nn::Shape(shape) != info.shape) {
      throw SizeMismatchError(fmt::format("set_parameters: {} must have the shape {}; got {}", key,
                                          info.shape.to_string(), nn::Shape(shape).to_string()));
    }
    const auto* v = static_cast<const float*>(a.data());
    std::copy(v, v + info.shape.size(), values.begin() + static_cast<std::ptrdiff_t>(info.offset));
    ++matched;
  }
  if (matched != arrays.size()) {
    throw ArgumentError(fmt::format("set_parameters: {} arrays given, the model has {} parameters",
                                    arrays.size(), matched));
  }
  model.set_parameter_values(values);
}

std::unique_ptr<PyModel> load(const std::string& path, const py::object& ctx,
                              const std::string& backend) {
  auto context = context_or_default(ctx);
  Context& c = context->use();
  std::optional<nn::Sequential> model;
  {
    py::gil_scoped_release unlocked;
    model.emplace(nn::load_any(c, path));
  }
  choose_backend(*model, backend);
  return wrap_model(std::move(context), std::move(*model));
}

std::unique_ptr<PyModel> from_json(const py::object& json, const py::object& ctx,
                                   const std::string& backend) {
  const std::string text =
      py::isinstance<py::str>(json)
          ? json.cast<std::string>()
          : py::module_::import("json").attr("dumps")(json).cast<std::string>();
  auto context = context_or_default(ctx);
  auto model = nn::model_from_json(context->use(), text, "gpgpu.nn.from_json");
  choose_backend(model, backend);
  return wrap_model(std::move(context), std::move(model));
}

std::unique_ptr<PyModel> builtin(const std::string& name, const py::object& input_shape,
                                 std::size_t classes, const py::object& ctx,
                                 const std::string& backend) {
  auto context = context_or_default(ctx);
  auto recipe = nn::builtin_net(context->use(), name, shape_from(input_shape, "builtin"), classes);
  choose_backend(recipe.model, backend);
  auto p = wrap_model(std::move(context), std::move(recipe.model));
  p->recipe = recipe.options;
  return p;
}

py::object recipe_of(const PyModel& p) {
  if (!p.recipe) return py::none();
  py::dict d;
  d["batch"] = p.recipe->batch;
  d["epochs"] = p.recipe->epochs;
  d["optimizer"] = optimizer_object(p.recipe->optimizer);
  d["schedule"] = std::string(nn::to_string(p.recipe->schedule));
  d["augment"] = p.recipe->augmentation.enabled();
  return d;
}

}  // namespace

void bind_nn_model(py::module_& m) {
  py::class_<PyModel> c(m, "Sequential",
                        R"(A network of layers run in sequence, on the GPU or the CPU.

    import numpy as np, gpgpu.nn as nn
    model = nn.Sequential((1, 28, 28), [
        nn.Conv2D(8, kernel=5, padding=2), nn.ReLU(), nn.MaxPool2D(),
        nn.Flatten(), nn.Dense(10)], seed=42)
    history = model.train(x, y, epochs=1, batch=64, optimizer=nn.Adam(1e-3))
    logits = model.predict(x_test)             # float32 (N, 10)
    classes = model.classify(x_test)           # int32 (N,)
    print(model.evaluate(x_test, y_test)["accuracy"])
    model.save("model")                        # a directory (or "model.npz")
    again = nn.load("model")                   # also an .onnx file (nn.load_onnx)
    nn.save_onnx(model, "model.onnx")          # for ONNX Runtime, PyTorch's tools, ...

input_shape: one sample's shape, (C, H, W) for images or (F,) for features. layers: layer
objects (help(gpgpu.nn.Conv2D) ...). ctx: a gpgpu.Context (default: gpgpu.default_context()).
backend: "auto" (cpu on llvmpipe, else compute), "compute", "transform-feedback" (or "tf"),
"cpu"; threads: the cpu backend's threads (0: one per core). seed: initialise the parameters
now (else with seed 1 on first use). Samples are float32 arrays (N, *input_shape) fed to the
network as they are, or uint8 images (N, C, H, W) normalised by model.normalization.
help(gpgpu.nn) has the rest: JSON descriptions, built-in nets, Fashion-MNIST, errors.)");
  c.def(py::init(&make_sequential), py::arg("input_shape"), py::arg("layers") = py::tuple(),
        py::kw_only(), py::arg("ctx") = py::none(), py::arg("backend") = "auto",
        py::arg("threads") = 0, py::arg("seed") = py::none())
      .def(
          "add",
          [](PyModel& p, const py::object& layer) -> PyModel& {
            p.use().add(layer_from(layer));
            return p;
          },
          py::arg("layer"), py::return_value_policy::reference_internal,
          "Appends a layer (before the first training or prediction); returns the model.\n\n"
          "    model.add(gpgpu.nn.Dense(10)).add(gpgpu.nn.Softmax())")
      .def_property_readonly(
          "layers",
          [](PyModel& p) {
            py::list l;
            for (const auto& layer : p.use().layers()) l.append(layer_object(layer));
            return l;
          },
          "The layers, as new layer objects: [layer.type for layer in model.layers] == "
          "['conv2d', 'relu', ...]; they compare with == (model.layers == other.layers).")
      .def_property_readonly(
          "input_shape", [](PyModel& p) { return shape_tuple(p.use().input_shape()); },
          "One sample's shape: x = np.zeros((8, *model.input_shape), np.float32).")
      .def_property_readonly(
          "output_shape", [](PyModel& p) { return shape_tuple(p.use().output_shape()); },
          "One sample's output shape: model.output_shape == (10,) for ten classes.")
      .def(
          "summary", [](PyModel& p) { return p.use().summary(); },
          "The layers, their output shapes and parameter counts, as text.")
      .def_property(
          "backend", [](PyModel& p) { return std::string(nn::to_string(p.use().backend())); },
          [](PyModel& p, const std::string& name) {
            choose_backend(p.use(), name, p.use().backend_options().threads);
          },
          "The backend as set: 'auto', 'cpu', 'compute' or 'transform-feedback' ('tf').\n\n"
          "    model.backend = \"cpu\"\n\n"
          "Setting it moves the parameters (their values stay; the optimizer's state restarts).")
      .def_property_readonly(
          "active_backend",
          [](PyModel& p) { return std::string(nn::to_string(p.use().active_backend())); },
          "The backend that runs ('auto' resolved for this device).")
      .def_property(
          "threads", [](PyModel& p) { return p.use().backend_options().threads; },
          [](PyModel& p, std::size_t threads) {
            choose_backend(p.use(), std::string(nn::to_string(p.use().backend())), threads);
          },
          "The cpu backend's threads (0: one per core, capped by $GPGPU_THREADS).")
      .def_property_readonly(
          "parameter_count", [](PyModel& p) { return p.use().parameter_count(); },
          "Every parameter value, BatchNorm's running statistics included: "
          "model.parameter_count == sum(a.size for a in model.parameters().values()).")
      .def_property_readonly(
          "trainable_parameter_count",
          [](PyModel& p) { return p.use().trainable_parameter_count(); },
          "The parameter values the optimizer trains (all but BatchNorm's running statistics).")
      .def(
          "initialize", [](PyModel& p, std::uint64_t seed) { p.use().initialize(seed); },
          py::arg("seed"), "Sets every parameter from a seeded generator (He / Xavier).")
      .def("parameters", &parameters_of,
           "Every parameter as a new float32 array, by key: {'00_weight': (8, 1, 5, 5), "
           "...}.")
      .def("set_parameters", &set_parameters, py::arg("arrays"),
           "Replaces every parameter from a dict like parameters() returns (all keys, same "
           "shapes, float32); nothing changes when one is wrong.")
      .def_property(
          "normalization",
          [](PyModel& p) {
            const auto n = p.use().normalization();
            return py::make_tuple(n.mean, n.stddev);
          },
          [](PyModel& p, const py::tuple& t) {
            p.use().set_normalization({t[0].cast<float>(), t[1].cast<float>()});
          },
          "(mean, std): uint8 images become (p / 255 - mean) / std. Saved with the model. float32 "
          "samples are fed as they are.")
      .def_property(
          "class_names", [](PyModel& p) { return p.use().class_names(); },
          [](PyModel& p, std::vector<std::string> names) {
            p.use().set_class_names(std::move(names));
          },
          "Names of the outputs, saved with the model (and as ONNX metadata): "
          "model.class_names = nn.fashion_mnist_classes().")
      .def_property_readonly(
          "recipe", &recipe_of,
          "A built-in net's training recipe (batch, epochs, optimizer, "
          "schedule), which train() follows where not told otherwise; else None.")
      .def(
          "save",
          [](PyModel& p, const std::string& path) {
            auto& model = p.use();
            py::gil_scoped_release unlocked;
            nn::save_model(model, path);
          },
          py::arg("path"),
          "Saves architecture, normalisation, class names and parameters: a directory of "
          "model.json + .npy files, or one .npz (path ending in .npz). Atomic.\n\n"
          "    model.save(\"out/model\")        # gpgpu.nn.load reads it back\n\n"
          "gpgpu.nn.save_onnx(model, path) writes ONNX instead.")
      .def(
          "to_json", [](PyModel& p) { return nn::architecture_json(p.use()); },
          "The architecture as JSON text (gpgpu.nn.from_json reads it back).")
      .def_property_readonly(
          "context", [](const PyModel& p) { return p.context; },
          "The gpgpu.Context the model lives on (calls must come from its thread).")
      .def("__repr__", [](PyModel& p) {
        auto& model = p.use();
        return fmt::format("<gpgpu.nn.Sequential {} -> {}, {} layers, {} parameters, backend {}>",
                           model.input_shape().to_string(), model.output_shape().to_string(),
                           model.layers().size(), model.parameter_count(),
                           nn::to_string(model.active_backend()));
      });
  bind_nn_train(c);

  m.def("load", &load, py::arg("path"), py::kw_only(), py::arg("ctx") = py::none(),
        py::arg("backend") = "auto",
        R"(A model from a file: ONNX for a path ending in .onnx, else gpgpu's own format.

    model = gpgpu.nn.load("out/train/model")       # or "model.npz"
    model = gpgpu.nn.load("cnn.onnx", ctx=ctx, backend="cpu")

gpgpu's own format is what Sequential.save and `gpgpu train` write (a directory, or a .npz
archive); an .onnx file is read as load_onnx reads it (BatchNorm folded). ctx: a gpgpu.Context (default: gpgpu.default_context()); backend as for Sequential. Raises
gpgpu.FormatError naming the file and what is wrong (a missing array, a wrong shape, not an
ONNX model), gpgpu.UnsupportedError naming the node of an ONNX graph gpgpu cannot run.)");
  m.def("from_json", &from_json, py::arg("json"), py::kw_only(), py::arg("ctx") = py::none(),
        py::arg("backend") = "auto",
        R"(A model (not initialised) from a JSON description: text or a dict.

    model = gpgpu.nn.from_json({"input": [1, 28, 28], "layers": [
        {"type": "conv2d", "filters": 8, "kernel": 5, "padding": 2}, {"type": "relu"},
        {"type": "maxpool2d", "size": 2}, {"type": "flatten"}, {"type": "dense", "units": 10}]})

The format of model.json (docs/nn.md). Raises gpgpu.FormatError naming the layer and key.)");
  m.def("builtin", &builtin, py::arg("name"), py::arg("input_shape") = py::make_tuple(1, 28, 28),
        py::arg("classes") = 10, py::kw_only(), py::arg("ctx") = py::none(),
        py::arg("backend") = "auto", R"(A built-in network with its training recipe (model.recipe).

    model = gpgpu.nn.builtin("small")             # for 28x28 grey images, 10 classes
    model = gpgpu.nn.builtin("cnn", (1, 28, 28), 10)
    model.train(x, y)                             # the recipe's batch and optimizer

Names: gpgpu.nn.builtin_names() ("small", "lenet", "cnn", "cnn-bn", "gpgpujs").)");
  m.def("builtin_names", &nn::builtin_net_names, "The names gpgpu.nn.builtin accepts.");
  m.def(
      "backends",
      [] {
        return std::vector<std::string>{"auto", "cpu", "compute", "transform-feedback"};
      },
      "The backend names Sequential(backend=...) accepts ('tf' is short for transform-feedback).");
}

}  // namespace gpgpu::python
