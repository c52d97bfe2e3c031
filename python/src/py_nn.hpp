// gpgpu.nn: the Python face of gpgpu::nn, shared by the py_nn_*.cpp files. A PyModel owns a
// Sequential made on a PyContext (kept alive by it) and disposes of it on the Context's thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpgpu/nn.hpp"
#include "py_arrays.hpp"
#include "py_bindings.hpp"
#include "py_context.hpp"

namespace gpgpu::python {

struct PyModel : ContextOwned<nn::Sequential> {
  std::optional<nn::TrainOptions> recipe;  // a built-in net's training recipe
};

// Layers and optimizers as Python objects (py_nn_layers.cpp).
void bind_nn_layers(py::module_& m);
nn::Layer layer_from(const py::handle& object);  // TypeError naming the object otherwise
py::object layer_object(const nn::Layer& layer);
nn::Optimizer optimizer_from(const py::handle& object);  // SGD, Adam, "sgd" or "adam"
py::object optimizer_object(const nn::Optimizer& optimizer);

// The one way a model reaches Python (py_nn_model.cpp): a gpgpu.nn.Sequential on `context`.
std::unique_ptr<PyModel> wrap_model(std::shared_ptr<PyContext> context, nn::Sequential model);
// Sets the backend by name ("auto", "cpu", "compute", "transform-feedback" or "tf";
// ArgumentError naming it otherwise) and the cpu backend's threads (0: one per core).
void choose_backend(nn::Sequential& model, const std::string& backend, std::size_t threads = 0);

void bind_nn_model(py::module_& m);  // Sequential, load, from_json, builtin (py_nn_model.cpp)
void bind_nn_train(py::class_<PyModel>& sequential);  // train, predict, evaluate (py_nn_train.cpp)
void bind_nn_data(py::module_& m);  // Fashion-MNIST and normalisation (py_nn_data.cpp)
// load_onnx, read_onnx, save_onnx, onnx_bytes (py_nn_onnx.cpp)
void bind_nn_onnx(py::module_& m);

}  // namespace gpgpu::python
