// gpgpu/npy.hpp — read and write NumPy .npy files (format versions 1.0, 2.0 and 3.0).
//
// Only what the GPU kernels consume is supported: little-endian float32, int32 and uint32
// in C (row-major) order, of any shape up to NumPy's 64 dimensions, including the 0-d
// scalar () and zero-length dimensions. Anything else, and every malformed or hostile file, is
// reported as a gpgpu::FormatError naming the file, what was expected and what was found; the
// reader never reads past the input and checks the data length against the input's size before it
// allocates, so a forged header cannot make it allocate gigabytes.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace gpgpu::npy {

// The element types gpgpu reads and writes in .npy files.
enum class DType { Float32, Int32, Uint32 };

// The C++ element types that have a DType; every element is 4 bytes.
template <class T>
concept Element =
    std::same_as<T, float> || std::same_as<T, std::int32_t> || std::same_as<T, std::uint32_t>;

// The DType of the C++ type T.
template <Element T>
constexpr DType dtype_of() {
  if constexpr (std::same_as<T, float>) {
    return DType::Float32;
  } else if constexpr (std::same_as<T, std::int32_t>) {
    return DType::Int32;
  } else {
    return DType::Uint32;
  }
}

// NumPy's name for the type: "float32", "int32" or "uint32".
std::string dtype_name(DType dtype);

// Bytes per element (4 for every supported DType).
std::size_t dtype_size(DType dtype);

// A NumPy array in memory: element type, shape and raw little-endian data.
struct Array {
  DType dtype = DType::Float32;    // the element type
  std::vector<std::size_t> shape;  // empty for a 0-d scalar
  std::vector<std::byte> data;     // C order, little-endian

  // Product of the dimensions: 1 for a scalar, 0 when any dimension is 0.
  std::size_t element_count() const;

  // @{
  // The data as elements of T. Throws gpgpu::TypeMismatchError (an ArgumentError) when T
  // does not match dtype, and gpgpu::SizeMismatchError when data does not hold exactly
  // element_count() elements.
  template <Element T>
  std::span<const T> view() const;
  template <Element T>
  std::span<T> view();
  // @}
};

// Decodes a whole .npy file held in memory. `origin` names the input (a file name) in
// error messages. Throws gpgpu::FormatError for anything malformed or unsupported.
Array parse(std::span<const std::byte> bytes, const std::string& origin);

// Reads and decodes a file; the data is read straight into the Array, not copied twice.
// Throws gpgpu::FormatError for bad content and gpgpu::Error when the file cannot be read.
Array load(const std::filesystem::path& path);

// Encodes an array as NumPy would (format 1.0, header padded so that the data starts at a
// multiple of 64 bytes). Throws gpgpu::ArgumentError when the array's data does not match
// its shape or it has more than 64 dimensions (NumPy's limit, which parse() enforces too).
std::vector<std::byte> serialize(const Array& array);

// Writes serialize(array) to a file; throws gpgpu::Error when it cannot be written. The
// file is written beside `path` first and renamed over it when complete: a failure (a full
// disk) never leaves a truncated file, and an existing file stays as it was.
void save(const std::filesystem::path& path, const Array& array);

// Builds an Array from typed values; throws gpgpu::SizeMismatchError when values does not
// hold exactly the product of shape.
template <Element T>
Array make(std::vector<std::size_t> shape, std::span<const T> values);

// view() and make() are defined, and instantiated for the three Element types, in npy.cpp.

}  // namespace gpgpu::npy
