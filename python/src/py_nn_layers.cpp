// gpgpu.nn's layers (Dense, Conv2D, ...) and optimizers (SGD, Adam): the C++ descriptions
// themselves, bound as small Python classes with keyword constructors, fields and reprs.
#include <cmath>
#include <optional>
#include <string>
#include <variant>
#include <vector>

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
      .def("__str__", [](const L& l) { return nn::describe(nn::Layer(l)); })
      .def("__eq__",
           [](const L& a, const py::object& b) {
             return py::isinstance<L>(b) &&
                    nn::describe(nn::Layer(a)) == nn::describe(nn::Layer(b.cast<const L&>()));
           })
      .def_property_readonly(
          "type", [](const L& l) { return std::string(nn::layer_type(nn::Layer(l))); },
          "The type name JSON and summaries use: gpgpu.nn.Conv2D(8).type == 'conv2d'.");
}

template <class L>
py::class_<L> simple_layer(py::module_& m, const char* name, const char* doc) {
  py::class_<L> c(m, name, doc);
  c.def(py::init<>());
  common(c);
  return c;
}

// None, or (top, left, bottom, right) of integers >= 0.
std::optional<nn::Padding> pads_from(const py::object& pads, const char* layer) {
  if (pads.is_none()) return std::nullopt;
  std::vector<std::size_t> sides;
  if (py::isinstance<py::sequence>(pads) && !py::isinstance<py::str>(pads)) {
    for (const auto& side : pads.cast<py::sequence>()) {
      if (!py::isinstance<py::int_>(side) || side.cast<long long>() < 0) break;
      sides.push_back(side.cast<std::size_t>());
    }
  }
  if (sides.size() != 4 || py::len(pads) != 4) {
    throw ArgumentError(
        fmt::format("{}: pads must be None or (top, left, bottom, right), integers >= 0; got {}",
                    layer, py::repr(pads).cast<std::string>()));
  }
  return nn::Padding{sides[0], sides[1], sides[2], sides[3]};
}

py::object pads_object(const std::optional<nn::Padding>& pads) {
  if (!pads) return py::none();
  return py::make_tuple(pads->top, pads->left, pads->bottom, pads->right);
}

// `padding` (every side) and `pads` (per side) of Conv2D and the pools; one of the two.
template <class L>
void set_padding(L& layer, std::size_t padding, const py::object& pads, const char* name) {
  layer.pads = pads_from(pads, name);
  if (layer.pads && padding != 0) {
    throw ArgumentError(
        fmt::format("{}: give padding (every side) or pads (per side), not both", name));
  }
  layer.padding = padding;
}

template <class L>
void padding_fields(py::class_<L>& c, const char* name) {
  c.def_readwrite("padding", &L::padding, "Zeros added on every side (unless pads is set).")
      .def_property(
          "pads", [](const L& l) { return pads_object(l.pads); },
          [name](L& l, const py::object& pads) { l.pads = pads_from(pads, name); },
          "Zeros per side, (top, left, bottom, right), instead of padding; None when unset.");
}

template <class Pool>
void pool_fields(py::class_<Pool>& c, const char* name) {
  c.def_readwrite("size", &Pool::size, "The window's side: size x size.")
      .def_readwrite("stride", &Pool::stride, "The step between windows (0: the same as size).")
      .def_readwrite("ceil_mode", &Pool::ceil_mode,
                     "Round the output extent up (a last, partial window), as PyTorch and ONNX "
                     "do with ceil_mode.");
  padding_fields(c, name);
}

void bind_dense_and_conv(py::module_& m) {
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
      .def_readwrite("units", &nn::Dense::units, "The number of outputs.")
      .def_property(
          "init", [](const nn::Dense& d) { return init_name(d.init); },
          [](nn::Dense& d, const std::string& s) { d.init = init_from(s); },
          "How the weights start: 'auto', 'he' or 'xavier'.");
  common(dense);

  py::class_<nn::Conv2D> conv(m, "Conv2D", R"(A 2-D convolution: (C, H, W) -> (filters, H', W').

    gpgpu.nn.Conv2D(32, kernel=5, padding=2)        # 'same' size for stride 1
    gpgpu.nn.Conv2D(64, kernel=3, stride=2, padding=1)
    gpgpu.nn.Conv2D(8, kernel=4, pads=(1, 1, 2, 2)) # top, left, bottom, right ('same', even kernel)

H' = (H + top + bottom - kernel) // stride + 1, likewise W'. padding puts the same number of
zeros on every side; pads gives each side its own (as ONNX and TensorFlow's 'same' padding
of even kernels need), instead of padding. A cross-correlation with zero padding, as in
PyTorch; weight (filters, C, kernel, kernel), bias (filters).)");
  conv.def(py::init([](std::size_t filters, std::size_t kernel, std::size_t stride,
                       std::size_t padding, const std::string& init, const py::object& pads) {
             if (filters == 0 || kernel == 0 || stride == 0) {
               throw ArgumentError("Conv2D: filters, kernel and stride must be positive");
             }
             nn::Conv2D c{filters, kernel, stride, 0, init_from(init)};
             set_padding(c, padding, pads, "Conv2D");
             return c;
           }),
           py::arg("filters"), py::arg("kernel") = 3, py::arg("stride") = 1, py::arg("padding") = 0,
           py::arg("init") = "auto", py::arg("pads") = py::none())
      .def_readwrite("filters", &nn::Conv2D::filters, "The number of output channels.")
      .def_readwrite("kernel", &nn::Conv2D::kernel, "The kernel's side: kernel x kernel.")
      .def_readwrite("stride", &nn::Conv2D::stride, "The step between positions, both ways.")
      .def_property(
          "init", [](const nn::Conv2D& c) { return init_name(c.init); },
          [](nn::Conv2D& c, const std::string& s) { c.init = init_from(s); },
          "How the weights start: 'auto', 'he' or 'xavier'.");
  padding_fields(conv, "Conv2D");
  common(conv);
}

void bind_pools(py::module_& m) {
  py::class_<nn::MaxPool2D> maxpool(m, "MaxPool2D", R"(Max pooling over square windows.

    gpgpu.nn.MaxPool2D()                                  # 2x2 windows, stride 2
    gpgpu.nn.MaxPool2D(3, stride=2)                       # overlapping windows
    gpgpu.nn.MaxPool2D(3, stride=2, padding=1, ceil_mode=True)
    gpgpu.nn.MaxPool2D(2, stride=1, pads=(0, 0, 1, 1))    # top, left, bottom, right

The maximum of the input values each window covers (padding is never taken). Each side's
padding must be below size. ceil_mode keeps a last, partial window (PyTorch's rule).)");
  maxpool.def(py::init([](std::size_t size, std::size_t stride, std::size_t padding,
                          const py::object& pads, bool ceil_mode) {
                if (size == 0) throw ArgumentError("MaxPool2D: size must be positive");
                nn::MaxPool2D p{size, stride};
                set_padding(p, padding, pads, "MaxPool2D");
                p.ceil_mode = ceil_mode;
                return p;
              }),
              py::arg("size") = 2, py::arg("stride") = 0, py::arg("padding") = 0,
              py::arg("pads") = py::none(), py::arg("ceil_mode") = false);
  pool_fields(maxpool, "MaxPool2D");
  common(maxpool);

  py::class_<nn::AvgPool2D> avgpool(m, "AvgPool2D", R"(Average pooling over square windows.

    gpgpu.nn.AvgPool2D(2)                                 # stride 0: the same as size
    gpgpu.nn.AvgPool2D(3, stride=2, padding=1)            # divides by 9 everywhere (PyTorch)
    gpgpu.nn.AvgPool2D(3, stride=2, padding=1, count_include_pad=False)   # ONNX's default

The mean of each window. count_include_pad=True divides by the window's positions within the
padded input (PyTorch's default), False by the input values it covers (ONNX's default).
padding, pads and ceil_mode as for MaxPool2D.)");
  avgpool
      .def(py::init([](std::size_t size, std::size_t stride, std::size_t padding,
                       const py::object& pads, bool ceil_mode, bool count_include_pad) {
             if (size == 0) throw ArgumentError("AvgPool2D: size must be positive");
             nn::AvgPool2D p{size, stride};
             set_padding(p, padding, pads, "AvgPool2D");
             p.ceil_mode = ceil_mode;
             p.count_include_pad = count_include_pad;
             return p;
           }),
           py::arg("size") = 2, py::arg("stride") = 0, py::arg("padding") = 0,
           py::arg("pads") = py::none(), py::arg("ceil_mode") = false,
           py::arg("count_include_pad") = true)
      .def_readwrite("count_include_pad", &nn::AvgPool2D::count_include_pad,
                     "Divide by the window's positions in the padded input (True) or by the "
                     "input values it covers (False).");
  pool_fields(avgpool, "AvgPool2D");
  common(avgpool);

  simple_layer<nn::GlobalAvgPool2D>(m, "GlobalAvgPool2D",
                                    R"(The mean of each channel's plane: (C, H, W) -> (C, 1, 1).

    gpgpu.nn.GlobalAvgPool2D()    # then Flatten() -> (C,), as ONNX's GlobalAveragePool)");
}

void bind_activations(py::module_& m) {
  simple_layer<nn::ReLU>(m, "ReLU", "max(x, 0), element-wise.\n\n    gpgpu.nn.ReLU()");
  py::class_<nn::LeakyReLU> leaky(m, "LeakyReLU", R"(x where x > 0, else alpha x, element-wise.

    gpgpu.nn.LeakyReLU()          # alpha 0.01 (PyTorch's default)
    gpgpu.nn.LeakyReLU(0.2)

alpha: finite and >= 0.)");
  leaky
      .def(py::init([](float alpha) {
             if (!std::isfinite(alpha) || alpha < 0.0f) {
               throw ArgumentError(
                   fmt::format("LeakyReLU: alpha must be a finite number >= 0; got {}", alpha));
             }
             return nn::LeakyReLU{alpha};
           }),
           py::arg("alpha") = 0.01f)
      .def_readwrite("alpha", &nn::LeakyReLU::alpha, "The slope for x <= 0.");
  common(leaky);
  py::class_<nn::Clip> clip(m, "Clip", R"(min(max(x, min), max), element-wise.

    gpgpu.nn.Clip()               # [0, 6]: ReLU6
    gpgpu.nn.Clip(-1.0, 1.0)      # min and max: finite, min < max)");
  clip.def(py::init([](float min, float max) {
             if (!std::isfinite(min) || !std::isfinite(max) || !(min < max)) {
               throw ArgumentError(fmt::format(
                   "Clip: min and max must be finite numbers with min < max; got [{}, {}]", min,
                   max));
             }
             return nn::Clip{min, max};
           }),
           py::arg("min") = 0.0f, py::arg("max") = 6.0f)
      .def_readwrite("min", &nn::Clip::min, "The lower bound.")
      .def_readwrite("max", &nn::Clip::max, "The upper bound.");
  common(clip);
  simple_layer<nn::Sigmoid>(m, "Sigmoid",
                            "1 / (1 + exp(-x)), element-wise.\n\n    gpgpu.nn.Sigmoid()");
  simple_layer<nn::Tanh>(m, "Tanh", "tanh(x), element-wise.\n\n    gpgpu.nn.Tanh()");
  simple_layer<nn::Softmax>(m, "Softmax", R"(Probabilities over the features (F) -> (F).

    gpgpu.nn.Softmax()    # last: predict() gives probabilities; training fuses it with the loss)");
}

void bind_other_layers(py::module_& m) {
  simple_layer<nn::Flatten>(m, "Flatten", "(C, H, W) -> (C*H*W).\n\n    gpgpu.nn.Flatten()");

  py::class_<nn::Dropout> dropout(m, "Dropout", R"(Zeroes a fraction `rate` of values in training.

    gpgpu.nn.Dropout(0.3)    # kept values scaled by 1 / (1 - rate); the identity in prediction)");
  dropout
      .def(py::init([](float rate) {
             if (!(rate >= 0 && rate < 1)) throw ArgumentError("Dropout: rate must be in [0, 1)");
             return nn::Dropout{rate};
           }),
           py::arg("rate") = 0.5f)
      .def_readwrite("rate", &nn::Dropout::rate, "The fraction zeroed in training, in [0, 1).");
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
      .def_readwrite("momentum", &nn::BatchNorm::momentum,
                     "The batch statistics' weight in the running ones, in [0, 1].")
      .def_readwrite("epsilon", &nn::BatchNorm::epsilon,
                     "Added to the variance before its square root (> 0).");
  common(batchnorm);
}

void bind_layers(py::module_& m) {
  bind_dense_and_conv(m);
  bind_pools(m);
  bind_activations(m);
  bind_other_layers(m);
}

void bind_optimizers(py::module_& m) {
  py::class_<nn::SGD>(m, "SGD", R"(Stochastic gradient descent with momentum (PyTorch's SGD).

    model.train(x, y, optimizer=gpgpu.nn.SGD(0.05, momentum=0.9, weight_decay=5e-4)))")
      .def(py::init([](float lr, float momentum, float weight_decay) {
             return nn::SGD{lr, momentum, weight_decay};
           }),
           py::arg("learning_rate") = 0.01f, py::arg("momentum") = 0.0f,
           py::arg("weight_decay") = 0.0f)
      .def_readwrite("learning_rate", &nn::SGD::learning_rate, "The step size.")
      .def_readwrite("momentum", &nn::SGD::momentum, "The velocity's decay (0: plain SGD).")
      .def_readwrite("weight_decay", &nn::SGD::weight_decay,
                     "L2 penalty added to the gradient (weight_decay * w).")
      .def("__repr__", [](const nn::SGD& o) { return "<gpgpu.nn " + nn::describe(o) + ">"; });
  py::class_<nn::Adam>(m, "Adam", R"(Adam (PyTorch's, with bias correction).

    model.train(x, y, optimizer=gpgpu.nn.Adam(1e-3))
    gpgpu.nn.Adam(2e-3, beta1=0.9, beta2=0.999, epsilon=1e-8, weight_decay=0))")
      .def(py::init([](float lr, float beta1, float beta2, float epsilon, float weight_decay) {
             return nn::Adam{lr, beta1, beta2, epsilon, weight_decay};
           }),
           py::arg("learning_rate") = 1e-3f, py::arg("beta1") = 0.9f, py::arg("beta2") = 0.999f,
           py::arg("epsilon") = 1e-8f, py::arg("weight_decay") = 0.0f)
      .def_readwrite("learning_rate", &nn::Adam::learning_rate, "The step size.")
      .def_readwrite("beta1", &nn::Adam::beta1, "The first moment's decay.")
      .def_readwrite("beta2", &nn::Adam::beta2, "The second moment's decay.")
      .def_readwrite("epsilon", &nn::Adam::epsilon, "Added to the denominator's square root.")
      .def_readwrite("weight_decay", &nn::Adam::weight_decay,
                     "L2 penalty added to the gradient (weight_decay * w).")
      .def("__repr__", [](const nn::Adam& o) { return "<gpgpu.nn " + nn::describe(o) + ">"; });
}

template <class L>
bool try_layer(const py::handle& o, std::optional<nn::Layer>& out) {
  if (!py::isinstance<L>(o)) return false;
  out = o.cast<const L&>();
  return true;
}

// Tries every alternative of the variant: a new layer type needs only its binding.
template <class Variant>
struct LayerAs;
template <class... L>
struct LayerAs<std::variant<L...>> {
  static bool from(const py::handle& o, std::optional<nn::Layer>& out) {
    return (try_layer<L>(o, out) || ...);
  }
};
template <class Variant>
bool layer_as(const py::handle& o, std::optional<nn::Layer>& out) {
  return LayerAs<Variant>::from(o, out);
}

}  // namespace

nn::Layer layer_from(const py::handle& object) {
  std::optional<nn::Layer> l;
  if (layer_as<nn::Layer>(object, l)) return *l;
  throw TypeMismatchError("gpgpu.nn: " + describe_value(object) +
                          " is not a layer (Dense, Conv2D, MaxPool2D, AvgPool2D, "
                          "GlobalAvgPool2D, ReLU, LeakyReLU, Clip, Sigmoid, Tanh, Flatten, "
                          "Dropout, BatchNorm, Softmax)");
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
