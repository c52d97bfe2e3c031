// Data sets: loading IDX image/label pairs, normalisation statistics, the shuffled order
// of an epoch, and the device-resident copy.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "batch_gather.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/nn/data.hpp"

namespace gpgpu::nn {

namespace {

// The first existing file among the usual spellings of an IDX file name.
std::filesystem::path find_idx(const std::filesystem::path& dir, std::string_view split,
                               std::string_view kind, std::string_view rank) {
  std::vector<std::filesystem::path> tried;
  for (const char* separator : {"-", "."}) {
    for (const char* suffix : {"", ".gz"}) {
      auto path = dir / fmt::format("{}-{}{}{}-ubyte{}", split, kind, separator, rank, suffix);
      if (std::filesystem::is_regular_file(path)) return path;
      tried.push_back(path);
    }
  }
  throw Error(
      fmt::format("no {} {} file in {} (looked for {}); pass --data DIR with MNIST-format "
                  "IDX files, or install Debian's dataset-fashion-mnist",
                  split, kind, dir.string(), tried.front().filename().string() + "[.gz]"));
}

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Images (N, H, W) or (N, H, W, C) as NCHW.
void take_images(Dataset& data, IdxArray images, const std::string& origin) {
  const auto& s = images.shape;
  if (s.size() != 3 && s.size() != 4) {
    throw FormatError(
        fmt::format("{}: images must have 3 dimensions (N, H, W) or 4 (N, H, W, C); "
                    "this file has {}",
                    origin, s.size()));
  }
  data.count = s[0];
  data.height = s[1];
  data.width = s[2];
  data.channels = s.size() == 4 ? s[3] : 1;
  if (data.count == 0 || data.height == 0 || data.width == 0 || data.channels == 0) {
    throw FormatError(fmt::format("{}: empty images ({})", origin, fmt::join(s, " x ")));
  }
  if (data.channels == 1) {
    data.images = std::move(images.values);
    return;
  }
  const std::size_t hw = data.height * data.width, c = data.channels;
  data.images.resize(images.values.size());
  for (std::size_t n = 0; n < data.count; ++n) {
    for (std::size_t p = 0; p < hw; ++p) {
      for (std::size_t k = 0; k < c; ++k) {
        data.images[(n * c + k) * hw + p] = images.values[(n * hw + p) * c + k];
      }
    }
  }
}

}  // namespace

Dataset Dataset::first(std::size_t limit) const {
  if (limit == 0 || limit >= count) return *this;
  Dataset d = *this;
  d.count = limit;
  d.images.resize(limit * pixels_per_image());
  d.labels.resize(limit);
  d.name = fmt::format("{} (first {})", name, limit);
  return d;
}

Dataset load_idx_dataset(const std::filesystem::path& dir, std::string_view split) {
  if (!std::filesystem::is_directory(dir)) {
    throw Error(fmt::format("data directory {} does not exist", dir.string()));
  }
  const auto image_path = find_idx(dir, split, "images", "idx3");
  const auto label_path = find_idx(dir, split, "labels", "idx1");
  Dataset data;
  take_images(data, read_idx(image_path), image_path.string());
  IdxArray labels = read_idx(label_path);
  if (labels.shape.size() != 1) {
    throw FormatError(fmt::format("{}: labels must have 1 dimension; this file has {}",
                                  label_path.string(), labels.shape.size()));
  }
  if (labels.shape[0] != data.count) {
    throw FormatError(fmt::format("{} holds {} images but {} holds {} labels", image_path.string(),
                                  data.count, label_path.string(), labels.shape[0]));
  }
  data.labels = std::move(labels.values);
  const auto largest = *std::max_element(data.labels.begin(), data.labels.end());
  data.classes = std::max<std::size_t>(2, std::size_t{largest} + 1);
  data.name = fmt::format("{} {}", dir.filename().string(), split);
  return data;
}

std::filesystem::path default_data_dir() {
  if (const char* env = std::getenv("GPGPU_NN_DATA"); env != nullptr && *env != '\0') return env;
  return "/usr/share/datasets/fashion-mnist";
}

std::vector<std::string> fashion_mnist_classes() {
  return {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
          "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
}

Normalization normalization_of(const Dataset& data) {
  if (data.images.empty()) throw ArgumentError("normalization_of: the data set is empty");
  double sum = 0, squares = 0;
  for (std::uint8_t p : data.images) {
    const double v = p / 255.0;
    sum += v;
    squares += v * v;
  }
  const double n = static_cast<double>(data.images.size());
  const double mean = sum / n;
  const double variance = std::max(squares / n - mean * mean, 1e-12);
  return {static_cast<float>(mean), static_cast<float>(std::sqrt(variance))};
}

std::vector<std::uint32_t> shuffled_indices(std::size_t count, std::uint64_t seed,
                                            std::size_t epoch) {
  if (count > 0xFFFFFFFFull) throw LimitError("shuffled_indices: more than 2^32 samples");
  std::vector<std::uint32_t> order(count);
  for (std::size_t i = 0; i < count; ++i) order[i] = static_cast<std::uint32_t>(i);
  std::uint64_t state = seed ^ (0xD1B54A32D192ED03ull * (epoch + 1));
  for (std::size_t i = count; i > 1; --i) {
    // An index in [0, i); the modulo bias is below i / 2^64.
    const auto j = static_cast<std::size_t>(splitmix64(state) % i);
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

DeviceDataset::DeviceDataset(const Context& context, const Dataset& data)
    : context_(&context),
      count_(data.count),
      classes_(data.classes),
      sample_shape_(data.sample_shape()),
      name_(data.name) {
  if (data.count == 0 || data.images.size() != data.count * data.pixels_per_image() ||
      data.labels.size() != data.count) {
    throw ArgumentError(fmt::format(
        "DeviceDataset: {} holds {} image bytes and {} labels for {} samples of {} pixels",
        data.name, data.images.size(), data.labels.size(), data.count, data.pixels_per_image()));
  }
  packed_.assign((data.images.size() + 3) / 4, 0u);
  for (std::size_t i = 0; i < data.images.size(); ++i) {
    packed_[i / 4] |= std::uint32_t{data.images[i]} << (8 * (i % 4));
  }
  std::vector<std::uint32_t> labels(data.labels.begin(), data.labels.end());
  labels_.assign(data.labels.begin(), data.labels.end());
  pixels_ = Buffer::from(context, std::span<const std::uint32_t>(packed_));
  label_buffer_ = Buffer::from(context, std::span<const std::uint32_t>(labels));
}

Tensor DeviceDataset::gather(std::span<const std::uint32_t> indices, Normalization normalization,
                             const Augmentation& augmentation, std::uint32_t seed) const {
  if (indices.empty()) throw ArgumentError("DeviceDataset::gather: no indices");
  for (std::uint32_t i : indices) {
    if (i >= count_) {
      throw ArgumentError(fmt::format(
          "DeviceDataset::gather: index {} is past the {} samples of {}", i, count_, name_));
    }
  }
  const Shape& s = sample_shape_;
  const Buffer order = Buffer::from(*context_, indices);
  Tensor batch(*context_, s.with_batch(indices.size()));
  Buffer labels(*context_, ElementType::Uint32, indices.size());
  detail::BatchGather gather(*context_,
                             {{"C", std::to_string(s[0])},
                              {"H", std::to_string(s[1])},
                              {"W", std::to_string(s[2])},
                              {"FLIP", augmentation.flip ? "1" : "0"},
                              {"SHIFT", std::to_string(std::max(0, augmentation.shift))}},
                             "nn gather");
  detail::GatherValues values{0u, static_cast<std::uint32_t>(indices.size()), normalization,
                              std::nullopt};
  if (augmentation.enabled()) values.seed = seed;
  gather.run({pixels_, label_buffer_, order}, values, batch.buffer(), labels, batch.size(),
             indices.size());
  return batch;
}

DeviceDataset::~DeviceDataset() = default;
DeviceDataset::DeviceDataset(DeviceDataset&&) noexcept = default;
DeviceDataset& DeviceDataset::operator=(DeviceDataset&&) noexcept = default;

}  // namespace gpgpu::nn
