// gpgpu/nn/tensor.hpp — float32 arrays with a shape, resident on the device.
//
//   gpgpu::nn::Tensor x = gpgpu::nn::Tensor::from(ctx, {64, 1, 28, 28}, pixels);  // upload once
//   gpgpu::nn::Tensor y = model.forward(x);                                      // stays on the
//   GPU std::vector<float> host = y.to_vector();                                     // explicit
//   download
//
// Shapes follow PyTorch: images are NCHW (batch, channels, rows, columns), the last index
// fastest; dense activations are (batch, features). A Tensor is a gpgpu::Buffer of
// shape.size() floats plus its Shape, so tensor.buffer() binds to any ComputeKernel and a
// kernel's output Buffer can be wrapped in a Tensor with no copy.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"

namespace gpgpu::nn {

// The extents of an array, outermost first: {N, C, H, W}, {N, F}, or a sample's {C, H, W}.
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<std::size_t> dims) : dims_(dims) {}  // {64, 1, 28, 28}
  explicit Shape(std::vector<std::size_t> dims) : dims_(std::move(dims)) {}  // the extents given

  std::size_t rank() const noexcept { return dims_.size(); }  // the number of extents
  // Extent i (std::out_of_range past the rank).
  std::size_t operator[](std::size_t i) const { return dims_.at(i); }
  const std::vector<std::size_t>& dims() const noexcept { return dims_; }  // all extents
  // The number of elements: the product of the extents (1 for rank 0).
  std::size_t size() const noexcept;
  // The same shape with `batch` put in front: {C, H, W} -> {batch, C, H, W}.
  Shape with_batch(std::size_t batch) const;
  // The shape without its first extent: {N, C, H, W} -> {C, H, W}.
  Shape without_batch() const;
  // "(64, 1, 28, 28)".
  std::string to_string() const;

  friend bool operator==(const Shape&, const Shape&) = default;  // the same extents

 private:
  std::vector<std::size_t> dims_;
};

// A float32 array on the device with a Shape: a network's inputs, outputs and gradients.
class Tensor {
 public:
  Tensor() = default;  // holds nothing
  // An uninitialised tensor. Throws ArgumentError for a shape with a zero extent.
  Tensor(const Context& context, Shape shape);
  // Wraps a Buffer of exactly shape.size() floats (SizeMismatchError otherwise); no copy.
  Tensor(Buffer buffer, Shape shape);

  // A tensor filled from host data of exactly shape.size() values (SizeMismatchError
  // naming both otherwise; nothing is allocated then).
  static Tensor from(const Context& context, Shape shape, std::span<const float> values);
  // The same from a vector.
  static Tensor from(const Context& context, Shape shape, const std::vector<float>& values) {
    return from(context, std::move(shape), std::span<const float>(values));
  }

  // Replaces the contents (exactly size() values, else SizeMismatchError).
  void upload(std::span<const float> values);
  // Downloads the contents; waits for the GPU.
  std::vector<float> to_vector() const;

  const Shape& shape() const noexcept { return shape_; }        // its extents
  std::size_t size() const noexcept { return shape_.size(); }  // elements
  bool valid() const noexcept { return buffer_.valid(); }      // holds device memory
  // @{
  // The device array (shape().size() floats), for binding to kernels.
  const Buffer& buffer() const noexcept { return buffer_; }
  Buffer& buffer() noexcept { return buffer_; }
  // @}

 private:
  Buffer buffer_;
  Shape shape_;
};

}  // namespace gpgpu::nn
