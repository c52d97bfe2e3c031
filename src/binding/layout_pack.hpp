// Internal: moving flat host arrays into and out of std430/std140 storage layouts.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpgpu::detail {

// Where the elements of an array of scalars, vectors or matrices lie in device memory.
struct ArrayLayout {
  int rows = 1;     // components per column
  int columns = 1;  // > 1 for matrices
  std::int64_t offset = 0;
  std::int64_t array_stride = 4;
  std::int64_t matrix_stride = 0;
  bool device_row_major = false;

  int components() const { return rows * columns; }
  // True when host and device bytes are identical, so a memcpy does.
  bool is_tight(bool host_row_major) const;
  std::size_t device_bytes(std::size_t elements) const {
    return static_cast<std::size_t>(offset) + elements * static_cast<std::size_t>(array_stride);
  }
};

// host: elements * components() 32-bit values, each matrix column-major unless
// host_row_major. device: at least layout.device_bytes(elements) bytes.
void pack(const void* host, std::size_t elements, bool host_row_major, const ArrayLayout& layout,
          void* device);
void unpack(const void* device, std::size_t elements, bool host_row_major,
            const ArrayLayout& layout, void* host);

}  // namespace gpgpu::detail
