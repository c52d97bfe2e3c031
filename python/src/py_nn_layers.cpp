// gpgpu.nn's layers (Dense, Conv2D, ...) and optimizers (SGD, Adam): the C++ descriptions
// themselves, bound as small Python classes with keyword constructors, fields and reprs.
#include <string>
#include <variant>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "py_nn.hpp"

namespace gpgpu::python {

namespace {

std::string init_name(nn::Init init) {
  return init == nn::Init::He ? "he" : init == nn::Init::Xavier ? "xavier" : "auto";
}

nn::Init init_from(const std::string& name) {
  if (name == "auto") return nn::Init::Auto;
  if (name == "he") return nn::Init::He;
  if (name == "xavier") return nn::Init::Xavier;
  throw ArgumentError("init must be 'auto', 'he' or 'xavier'; got '" + name + "'");
}

template <class L>
void common(py::class_<L>& c) {
  c.def("__repr__", [](const L& l) { return "<gpgpu.nn " + nn::describe(nn::Layer(l)) + ">"; })
      .def("__eq__",
           [](const L& a, const py::object& b) {
             return py::isinstance<L>(b) &&
                    nn::describe(nn::Layer(a)) == nn::describe(nn::Layer(b.cast<const L&>()));
           })
      .def_property_readonly("type",
                             [](const L& l) { return std::string(nn::layer_type(nn::Layer(l))); });
}

template <class L>
py::class_<L> simple_layer(py::module_& m, const char* name, const char* doc) {
  py::class_<L> c(m, name, doc);
  c.def(py::init<>());
  common(c);
  return c;
}

void bind_layers(py::module_& m) {
  py::class_<nn::Dense> dense(m, "Dense", R"(A fully connected layer: (F) -> (units).

    gpgpu.nn.Dense(10)                      # weight (10, F), bias (10)
    gpgpu.nn.Dense(128, init="he")          # "auto" (He before a ReLU, else Xavier), "he", "xavier"

Weights are saved in PyTorch's layout (out, in).)");
  dense
      .def(py::init([](std::size_t units, const std::string& init) {
             if (units == 0) throw ArgumentError("Dense: units must be positive");
             return nn::Dense{units, init_from(init)};
           }),
           py::arg("units"), py::arg("init") = "auto")
      .def_readwrite("units", &nn::Dense::units)
      .def_property(
          "init", [](const nn::Dense& d) { return init_name(d.init); },
          [](nn::Dense& d, const std::string& s) { d.init = init_from(s); });
  common(dense);

  py::class_<nn::Conv2D> conv(m, "Conv2D", R"(A 2-D convolution: (C, H, W) -> (filters, H', W').

    gpgpu.nn.Conv2D(32, kernel=5, padding=2)        # 'same' size for stride 1
    gpgpu.nn.Conv2D(64, kernel=3, stride=2, padding=1)

H' = (H + 2 padding - kernel) // stride + 1. A cross-correlation with zero padding, as in
PyTorch; weight (filters, C, kernel, kernel), bias (filters).)");
  conv.def(py::init([](std::size_t filters, std::size_t kernel, std::size_t stride,
                       std::size_t padding, const std::string& init) {
             if (filters == 0 || kernel == 0 || stride == 0) {
               throw ArgumentError("Conv2D: filters, kernel and stride must be positive");
             }
             return nn::Conv2D{filters, kernel, stride, padding, init_from(init)};
           }),
           py::arg("filters"), py::arg("kernel") = 3, py::arg("stride") = 1, py::arg("padding") = 0,
           py::arg("init") = "auto")
      .def_readwrite("filters", &nn::Conv2D::filters)
      .def_readwrite("kernel", &nn::Conv2D::kernel)
      .def_readwrite("stride", &nn::Conv2D::stride)
      .def_readwrite("padding", &nn::Conv2D::padding)
      .def_property(
          "init", [](const nn::Conv2D& c) { return init_name(c.init); },
          [](nn::Conv2D& c, const std::string& s) { c.init = init_from(s); });
  common(conv);

  py::class_<nn::MaxPool2D> maxpool(m, "MaxPool2D", R"(Max pooling over square windows.

    gpgpu.nn.MaxPool2D()              # 2x2 windows, stride 2
    gpgpu.nn.MaxPool2D(3, stride=2)   # overlapping windows)");
  maxpool
      .def(py::init([](std::size_t size, std::size_t stride) {
             if (size == 0) throw ArgumentError("MaxPool2D: size must be positive");
             return nn::MaxPool2D{size, stride};
           }),
           py::arg("size") = 2, py::arg("stride") = 0)
      .def_readwrite("size", &nn::MaxPool2D::size)
      .def_readwrite("stride", &nn::MaxPool2D::stride);
  common(maxpool);

  py::class_<nn::AvgPool2D> avgpool(m, "AvgPool2D", R"(Average pooling over square windows.

    gpgpu.nn.AvgPool2D(2)             # stride 0: the same as size)");
  avgpool
      .def(py::init([](std::size_t size, std::size_t stride) {
             if (size == 0) throw ArgumentError("AvgPool2D: size must be positive");
             return nn::AvgPool2D{size, stride};
           }),
           py::arg("size") = 2, py::arg("stride") = 0)
      .def_readwrite("size", &nn::AvgPool2D::size)
      .def_readwrite("stride", &nn::AvgPool2D::stride);
  common(avgpool);

  simple_layer<nn::ReLU>(m, "ReLU", "max(x, 0), element-wise.\n\n    gpgpu.nn.ReLU()");
  simple_layer<nn::Sigmoid>(m, "Sigmoid",
                            "1 / (1 + exp(-x)), element-wise.\n\n    gpgpu.nn.Sigmoid()");
  simple_layer<nn::Tanh>(m, "Tanh", "tanh(x), element-wise.\n\n    gpgpu.nn.Tanh()");
  simple_layer<nn::Flatten>(m, "Flatten", "(C, H, W) -> (C*H*W).\n\n    gpgpu.nn.Flatten()");
  simple_layer<nn::Softmax>(m, "Softmax", R"(Probabilities over the features (F) -> (F).

    gpgpu.nn.Softmax()    # last: predict() gives probabilities; training fuses it with the loss)");

  py::class_<nn::Dropout> dropout(m, "Dropout", R"(Zeroes a fraction `rate` of values in training.

    gpgpu.nn.Dropout(0.3)    # kept values scaled by 1 / (1 - rate); the identity in prediction)");
  dropout
      .def(py::init([](float rate) {
             if (!(rate >= 0 && rate < 1)) throw ArgumentError("Dropout: rate must be in [0, 1)");
             return nn::Dropout{rate};
           }),
           py::arg("rate") = 0.5f)
      .def_readwrite("rate", &nn::Dropout::rate);
  common(dropout);

  py::class_<nn::BatchNorm> batchnorm(m, "BatchNorm", R"(Batch normalisation per channel or feature.

    gpgpu.nn.BatchNorm()                      # momentum 0.1, epsilon 1e-5 (PyTorch's)
    gpgpu.nn.BatchNorm(momentum=0.01)

Parameters gamma, beta (trained) and running_mean, running_var (updated in training).)");
  batchnorm
      .def(py::init([](float momentum, float epsilon) {
             return nn::BatchNorm{momentum, epsilon};
           }),
           py::arg("momentum") = 0.1f, py::arg("epsilon") = 1e-5f)
      .def_readwrite("momentum", &nn::BatchNorm::momentum)
      .def_readwrite("epsilon", &nn::BatchNorm::epsilon);
  common(batchnorm);
}

void bind_optimizers(py::module_& m) {
  py::class_<nn::SGD>(m, "SGD", R"(Stochastic gradient descent with momentum (PyTorch's SGD).

    model.train(x, y, optimizer=gpgpu.nn.SGD(0.05, momentum=0.9, weight_decay=5e-4)))")
      .def(py::init([](float lr, float momentum, float weight_decay) {
             return nn::SGD{lr, momentum, weight_decay};
           }),
           py::arg("learning_rate") = 0.01f, py::arg("momentum") = 0.0f,
           py::arg("weight_decay") = 0.0f)
      .def_readwrite("learning_rate", &nn::SGD::learning_rate)
      .def_readwrite("momentum", &nn::SGD::momentum)
      .def_readwrite("weight_decay", &nn::SGD::weight_decay)
      .def("__repr__", [](const nn::SGD& o) { return "<gpgpu.nn " + nn::describe(o) + ">"; });
  py::class_<nn::Adam>(m, "Adam", R"(Adam (PyTorch's, with bias correction).

    model.train(x, y, optimizer=gpgpu.nn.Adam(1e-3))
    gpgpu.nn.Adam(2e-3, beta1=0.9, beta2=0.999, epsilon=1e-8, weight_decay=0))")
      .def(py::init([](float lr, float beta1, float beta2, float epsilon, float weight_decay) {
             return nn::Adam{lr, beta1, beta2, epsilon, weight_decay};
           }),
           py::arg("learning_rate") = 1e-3f, py::arg("beta1") = 0.9f, py::arg("beta2") = 0.999f,
           py::arg("epsilon") = 1e-8f, py::arg("weight_decay") = 0.0f)
      .def_readwrite("learning_rate", &nn::Adam::learning_rate)
      .def_readwrite("beta1", &nn::Adam::beta1)
      .def_readwrite("beta2", &nn::Adam::beta2)
      .def_readwrite("epsilon", &nn::Adam::epsilon)
      .def_readwrite("weight_decay", &nn::Adam::weight_decay)
      .def("__repr__", [](const nn::Adam& o) { return "<gpgpu.nn " + nn::describe(o) + ">"; });
}

template <class L>
bool try_layer(const py::handle& o, std::optional<nn::Layer>& out) {
  if (!py::isinstance<L>(o)) return false;
  out = o.cast<const L&>();
  return true;
}

}  // namespace

nn::Layer layer_from(const py::handle& object) {
  std::optional<nn::Layer> l;
  if (try_layer<nn::Dense>(object, l) || try_layer<nn::Conv2D>(object, l) ||
      try_layer<nn::MaxPool2D>(object, l) || try_layer<nn::AvgPool2D>(object, l) ||
      try_layer<nn::ReLU>(object, l) || try_layer<nn::Sigmoid>(object, l) ||
      try_layer<nn::Tanh>(object, l) || try_layer<nn::Flatten>(object, l) ||
      try_layer<nn::Dropout>(object, l) || try_layer<nn::BatchNorm>(object, l) ||
      try_layer<nn::Softmax>(object, l)) {
    return *l;
  }
  throw TypeMismatchError("gpgpu.nn: " + describe_value(object) +
                          " is not a layer (Dense, Conv2D, MaxPool2D, AvgPool2D, ReLU, Sigmoid, "
                          "Tanh, Flatten, Dropout, BatchNorm, Softmax)");
}

py::object layer_object(const nn::Layer& layer) {
  return std::visit([](const auto& l) { return py::cast(l); }, layer);
}

nn::Optimizer optimizer_from(const py::handle& object) {
  if (py::isinstance<nn::SGD>(object)) return object.cast<nn::SGD>();
  if (py::isinstance<nn::Adam>(object)) return object.cast<nn::Adam>();
  if (py::isinstance<py::str>(object)) {
    const auto name = object.cast<std::string>();
    if (name == "sgd") return nn::SGD{};
    if (name == "adam") return nn::Adam{};
  }
  throw TypeMismatchError(
      "gpgpu.nn: optimizer must be gpgpu.nn.SGD(...), gpgpu.nn.Adam(...), "
      "'sgd' or 'adam'; got " +
      describe_value(object));
}

py::object optimizer_object(const nn::Optimizer& optimizer) {
  return std::visit([](const auto& o) { return py::cast(o); }, optimizer);
}

void bind_nn_layers(py::module_& m) {
  bind_layers(m);
  bind_optimizers(m);
}

}  // namespace gpgpu::python
