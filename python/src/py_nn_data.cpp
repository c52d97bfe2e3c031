// gpgpu.nn's data helpers: Fashion-MNIST (or any IDX data set) as NumPy arrays, and the
// normalisation of byte images.
#include <cstdint>
#include <string>

#include "gpgpu/error.hpp"
#include "py_nn.hpp"

namespace gpgpu::python {

namespace {

py::tuple load_idx(const std::string& split, std::size_t limit, const py::object& data_dir) {
  const std::filesystem::path dir = data_dir.is_none()
                                        ? nn::default_data_dir()
                                        : std::filesystem::path(data_dir.cast<std::string>());
  nn::Dataset d;
  {
    py::gil_scoped_release unlocked;  // inflating 60,000 images takes a fraction of a second
    d = nn::load_idx_dataset(dir, split).first(limit);
  }
  py::array images =
      numpy().attr("empty")(py::make_tuple(d.count, d.channels, d.height, d.width), "uint8");
  std::copy(d.images.begin(), d.images.end(), static_cast<std::uint8_t*>(images.mutable_data()));
  py::array labels = new_array(ElementType::Int32, {static_cast<py::ssize_t>(d.count)});
  std::copy(d.labels.begin(), d.labels.end(), static_cast<std::int32_t*>(labels.mutable_data()));
  return py::make_tuple(images, labels);
}

py::tuple normalization_of(const py::array& images) {
  if (!is_uint8(images) || images.size() == 0) {
    throw TypeMismatchError("normalization_of: give uint8 images; got " + describe_value(images));
  }
  const py::array c = numpy().attr("ascontiguousarray")(images);
  nn::Dataset d;
  const auto* p = static_cast<const std::uint8_t*>(c.data());
  d.images.assign(p, p + c.size());
  d.count = 1, d.channels = 1, d.height = 1, d.width = d.images.size();
  const auto n = nn::normalization_of(d);
  return py::make_tuple(n.mean, n.stddev);
}

}  // namespace

void bind_nn_data(py::module_& m) {
  m.def("load_fashion_mnist", &load_idx, py::arg("split") = "train", py::kw_only(),
        py::arg("limit") = 0, py::arg("data_dir") = py::none(),
        R"(Fashion-MNIST (or any MNIST-format IDX data set) as (images, labels).

    images, labels = gpgpu.nn.load_fashion_mnist("train", limit=1000)
    images.shape, images.dtype      # (1000, 1, 28, 28) uint8
    labels.shape, labels.dtype      # (1000,) int32
    x = images.astype(np.float32) / 255     # float samples in [0, 1], if you want them

split: "train" or "t10k". data_dir: a folder of SPLIT-images-idx3-ubyte[.gz] and
SPLIT-labels-idx1-ubyte[.gz] (default $GPGPU_NN_DATA, else /usr/share/datasets/fashion-mnist,
Debian's dataset-fashion-mnist). limit: the first N only (0: all). Raises gpgpu.Error naming the
files looked for when they are missing, gpgpu.FormatError for a damaged file.)");
  m.def("fashion_mnist_classes", &nn::fashion_mnist_classes,
        "The ten class names: ['T-shirt/top', 'Trouser', ...].");
  m.def(
      "default_data_dir", [] { return nn::default_data_dir().string(); },
      "Where load_fashion_mnist looks by default ($GPGPU_NN_DATA, else Debian's folder).");
  m.def("normalization_of", &normalization_of, py::arg("images"),
        R"((mean, std) of uint8 images' pixels scaled to [0, 1], for Sequential.normalization.

    model.normalization = gpgpu.nn.normalization_of(train_images))");
}

}  // namespace gpgpu::python
