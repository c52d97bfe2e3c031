// The submodule gpgpu.nn (python/gpgpu/nn.py re-exports it): networks built, trained and run
// from NumPy arrays on any backend of gpgpu::nn.
#include "py_nn.hpp"

namespace gpgpu::python {

void bind_nn(py::module_& m) {
  auto nn_module =
      m.def_submodule("nn", R"(Convolutional networks on the GPU (or the CPU), from NumPy arrays.

    import numpy as np, gpgpu.nn as nn
    images, labels = nn.load_fashion_mnist("train", limit=2000)      # uint8 (N, 1, 28, 28)
    x = images.astype(np.float32) / 255
    model = nn.Sequential((1, 28, 28), [nn.Conv2D(8, kernel=5, padding=2), nn.ReLU(),
                                        nn.MaxPool2D(), nn.Flatten(), nn.Dense(10)], seed=1)
    model.train(x, labels, epochs=1, batch=32, optimizer=nn.Adam(2e-3))
    print(model.classify(x[:5]), labels[:5])
    model.save("model.npz")
    again = nn.load("model.npz")          # or an .onnx file: nn.save_onnx(model, "model.onnx")

Contents: Sequential; the layers Dense, Conv2D, MaxPool2D, AvgPool2D, GlobalAvgPool2D, ReLU,
LeakyReLU, Clip, Sigmoid, Tanh, Flatten, Dropout, BatchNorm, Softmax; the optimizers SGD and
Adam; load (gpgpu's own files or .onnx), from_json, builtin, builtin_names, backends;
load_onnx, read_onnx, save_onnx, onnx_bytes (ONNX in and out, docs/onnx.md);
load_fashion_mnist, fashion_mnist_classes, normalization_of. Every function that makes a
model takes ctx= (a gpgpu.Context; default gpgpu.default_context()) and backend=.
docs/python-nn-earth.md has the guide; errors are the gpgpu.Error classes.)");
  bind_nn_layers(nn_module);
  bind_nn_model(nn_module);
  bind_nn_data(nn_module);
  bind_nn_onnx(nn_module);
}

}  // namespace gpgpu::python
