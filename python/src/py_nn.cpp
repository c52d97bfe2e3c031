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

Contents: Sequential; the layers Dense, Conv2D, MaxPool2D, AvgPool2D, ReLU, Sigmoid, Tanh,
Flatten, Dropout, BatchNorm, Softmax; the optimizers SGD and Adam; load, from_json, builtin,
builtin_names, backends; load_fashion_mnist, fashion_mnist_classes, normalization_of.
docs/python.md has the guide; errors are the gpgpu.Error classes.)");
  bind_nn_layers(nn_module);
  bind_nn_model(nn_module);
  bind_nn_data(nn_module);
  // ONNX import and export (load_onnx, save_onnx) join this submodule here, from
  // python/src/py_nn_onnx.cpp:  bind_nn_onnx(nn_module);
}

}  // namespace gpgpu::python
