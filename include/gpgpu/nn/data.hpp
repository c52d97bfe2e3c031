// gpgpu/nn/data.hpp — image data sets: IDX files (the MNIST format), normalisation,
// shuffling, augmentation, and the copy that lives on the device.
//
//   auto train = gpgpu::nn::load_idx_dataset(gpgpu::nn::default_data_dir(), "train");
//   auto test = gpgpu::nn::load_idx_dataset(gpgpu::nn::default_data_dir(), "t10k");
//   gpgpu::nn::DeviceDataset device_train(ctx, train);   // uploaded once, 1 byte per pixel
//
// IDX (http://yann.lecun.com/exdb/mnist/): a big-endian header — two zero bytes, a type
// byte (0x08 = unsigned byte, the only type read here), the number of dimensions d, then d
// 32-bit extents — and the values in C order. Files may be gzip-compressed (read through
// zlib). A data set is DIR/SPLIT-images-idx3-ubyte and DIR/SPLIT-labels-idx1-ubyte, each
// optionally with .gz: the layout of MNIST, Fashion-MNIST (Debian's dataset-fashion-mnist
// installs it in /usr/share/datasets/fashion-mnist) and KMNIST. Images of rank 3 are
// (N, H, W) with one channel; rank 4 is (N, H, W, C) as some IDX writers store colour.
//
// Every malformed file is a FormatError naming the file and what is wrong (magic, type,
// extents that do not match the file's size, image and label counts that disagree).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/nn/tensor.hpp"

namespace gpgpu::nn {

// An IDX array of unsigned bytes.
struct IdxArray {
  std::vector<std::size_t> shape;    // the dimensions
  std::vector<std::uint8_t> values;  // C order
};
// Reads an IDX file, gzip-compressed or not (detected from its first bytes).
IdxArray read_idx(const std::filesystem::path& path);
// Decodes IDX bytes held in memory (already decompressed); `origin` names them in errors.
IdxArray parse_idx(std::span<const std::uint8_t> bytes, const std::string& origin);
// Writes an uncompressed IDX file of unsigned bytes (for tests and tools).
void write_idx(const std::filesystem::path& path, const IdxArray& array);

// Images and labels in memory: images (count, channels, height, width) as bytes 0..255.
struct Dataset {
  std::vector<std::uint8_t> images;  // NCHW
  std::vector<std::uint8_t> labels;  // one per image, each < classes
  std::size_t count = 0, channels = 1, height = 0, width = 0;  // N, C, H, W
  std::size_t classes = 0;  // 1 + the largest label (at least 2)
  std::string name;         // "fashion-mnist train", for messages

  Shape sample_shape() const { return {channels, height, width}; }             // (C, H, W)
  std::size_t pixels_per_image() const { return channels * height * width; }  // C * H * W
  // The first `limit` samples (all of them when limit is 0 or >= count).
  Dataset first(std::size_t limit) const;
};

// DIR/SPLIT-images-idx3-ubyte[.gz] and DIR/SPLIT-labels-idx1-ubyte[.gz] (SPLIT: "train" or
// "t10k"). Throws Error naming the files looked for when they are missing.
Dataset load_idx_dataset(const std::filesystem::path& dir, std::string_view split);
// /usr/share/datasets/fashion-mnist, or $GPGPU_NN_DATA when set.
std::filesystem::path default_data_dir();
// The ten Fashion-MNIST class names ("T-shirt/top", "Trouser", ...).
std::vector<std::string> fashion_mnist_classes();

// Pixels become (p / 255 - mean) / stddev on the device.
struct Normalization {
  float mean = 0.0f;    // of the pixels scaled to [0, 1]
  float stddev = 1.0f;  // of the pixels scaled to [0, 1]
};
// The mean and standard deviation of all pixels of a data set, scaled to [0, 1].
Normalization normalization_of(const Dataset& data);

// Random changes to each training image, drawn per sample and epoch from the seed:
// a horizontal flip with probability 1/2, and a shift by up to `shift` pixels in each
// direction (uniform in -shift..shift; pixels shifted in are 0 before normalisation).
struct Augmentation {
  bool flip = false;  // flip horizontally with probability 1/2
  int shift = 0;      // shift by up to this many pixels each way
  bool enabled() const { return flip || shift > 0; }  // any change at all
};

// The sample order of an epoch: a permutation of 0..count-1 from (seed, epoch), the same on
// every platform (a SplitMix64 stream and a Fisher-Yates shuffle).
std::vector<std::uint32_t> shuffled_indices(std::size_t count, std::uint64_t seed,
                                            std::size_t epoch);

// A Dataset uploaded to the device once: pixels packed four to a uint32 and labels, so that
// a kernel gathers each batch by index (normalising and augmenting as it goes) without any
// transfer per step.
class DeviceDataset {
 public:
  // Uploads `data` to `context`'s device.
  DeviceDataset(const Context& context, const Dataset& data);
  ~DeviceDataset();
  // @{
  // Moves the device copy; a moved-from DeviceDataset must not be used.
  DeviceDataset(DeviceDataset&&) noexcept;
  DeviceDataset& operator=(DeviceDataset&&) noexcept;
  // @}

  std::size_t count() const noexcept { return count_; }      // samples
  std::size_t classes() const noexcept { return classes_; }  // as in Dataset::classes
  Shape sample_shape() const { return sample_shape_; }       // (C, H, W)
  const std::vector<int>& labels() const noexcept { return labels_; }  // host copy
  const std::string& name() const noexcept { return name_; }  // as in Dataset::name
  const Buffer& pixels() const noexcept { return pixels_; }  // ceil(count C H W / 4) uint32
  const Buffer& label_buffer() const noexcept { return label_buffer_; }  // count uint32
  // The packed pixels and labels as host values, for backends that copy them into textures.
  const std::vector<std::uint32_t>& packed_pixels() const noexcept { return packed_; }

  // The samples at `indices` as a (n, C, H, W) Tensor, normalised, and flipped and shifted
  // as training does with `seed` when `augmentation` is enabled: the kernel that gathers
  // training batches, for inspection and tests. Throws ArgumentError for an index past the
  // data or an empty list.
  Tensor gather(std::span<const std::uint32_t> indices, Normalization normalization,
                const Augmentation& augmentation = {}, std::uint32_t seed = 0) const;

 private:
  const Context* context_ = nullptr;
  std::size_t count_ = 0, classes_ = 0;
  Shape sample_shape_;
  std::vector<int> labels_;
  std::string name_;
  std::vector<std::uint32_t> packed_;
  Buffer pixels_, label_buffer_;
};

}  // namespace gpgpu::nn
