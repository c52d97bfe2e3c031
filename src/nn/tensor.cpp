// Shape and Tensor: a float32 Buffer with NCHW extents.
#include "gpgpu/nn/tensor.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::nn {

std::size_t Shape::size() const noexcept {
  std::size_t n = 1;
  for (std::size_t d : dims_) n *= d;
  return n;
}

Shape Shape::with_batch(std::size_t batch) const {
  std::vector<std::size_t> dims{batch};
  dims.insert(dims.end(), dims_.begin(), dims_.end());
  return Shape(std::move(dims));
}

Shape Shape::without_batch() const {
  if (dims_.empty()) throw ArgumentError("Shape::without_batch: the shape () has no batch extent");
  return Shape(std::vector<std::size_t>(dims_.begin() + 1, dims_.end()));
}

std::string Shape::to_string() const {
  if (dims_.size() == 1) return fmt::format("({},)", dims_[0]);
  return fmt::format("({})", fmt::join(dims_, ", "));
}

namespace {

void check_extents(const Shape& shape, const char* what) {
  if (shape.rank() == 0)
    throw ArgumentError(fmt::format("{}: a tensor needs at least one extent", what));
  for (std::size_t d : shape.dims()) {
    if (d == 0) {
      throw ArgumentError(fmt::format("{}: shape {} has a zero extent", what, shape.to_string()));
    }
  }
}

}  // namespace

Tensor::Tensor(const Context& context, Shape shape) : shape_(std::move(shape)) {
  check_extents(shape_, "nn::Tensor");
  buffer_ = Buffer(context, ElementType::Float32, shape_.size());
}

Tensor::Tensor(Buffer buffer, Shape shape) : shape_(std::move(shape)) {
  check_extents(shape_, "nn::Tensor");
  if (buffer.element_type() != ElementType::Float32 || buffer.size() != shape_.size()) {
    throw SizeMismatchError(fmt::format(
        "nn::Tensor: a tensor of shape {} needs a float32 Buffer of {} elements; got a {} Buffer "
        "of {}",
        shape_.to_string(), shape_.size(), gpgpu::to_string(buffer.element_type()), buffer.size()));
  }
  buffer_ = std::move(buffer);
}

Tensor Tensor::from(const Context& context, Shape shape, std::span<const float> values) {
  check_extents(shape, "nn::Tensor::from");
  if (values.size() != shape.size()) {
    throw SizeMismatchError(fmt::format("nn::Tensor::from: shape {} holds {} values; {} were given",
                                        shape.to_string(), shape.size(), values.size()));
  }
  Tensor t(context, std::move(shape));
  t.buffer_.upload(values);
  return t;
}

void Tensor::upload(std::span<const float> values) {
  if (values.size() != size()) {
    throw SizeMismatchError(
        fmt::format("nn::Tensor::upload: the tensor {} holds {} values; {} were given",
                    shape_.to_string(), size(), values.size()));
  }
  buffer_.upload(values);
}

std::vector<float> Tensor::to_vector() const {
  if (!valid()) throw Error("nn::Tensor::to_vector: the tensor holds nothing");
  return buffer_.to_vector<float>();
}

}  // namespace gpgpu::nn
