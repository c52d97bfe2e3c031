#include "binding/layout_pack.hpp"

#include <cstring>

namespace gpgpu::detail {

namespace {

// Byte offset in device memory of component (row, column) of element `e`.
std::size_t device_offset(const ArrayLayout& l, std::size_t e, int row, int column) {
  std::size_t at = static_cast<std::size_t>(l.offset) + e * static_cast<std::size_t>(l.array_stride);
  if (l.columns == 1) return at + 4 * static_cast<std::size_t>(row);
  if (l.device_row_major) {
    return at + static_cast<std::size_t>(row) * static_cast<std::size_t>(l.matrix_stride) + 4 * static_cast<std::size_t>(column);
  }
  return at + static_cast<std::size_t>(column) * static_cast<std::size_t>(l.matrix_stride) + 4 * static_cast<std::size_t>(row);
}

// Index in the flat host element of component (row, column).
std::size_t host_index(const ArrayLayout& l, bool host_row_major, int row, int column) {
  return host_row_major ? static_cast<std::size_t>(row * l.columns + column)
                        : static_cast<std::size_t>(column * l.rows + row);
}

}  // namespace

bool ArrayLayout::is_tight(bool host_row_major) const {
  const std::int64_t element_bytes = 4 * components();
  if (array_stride != element_bytes) return false;
  if (columns == 1) return true;
  return matrix_stride == 4 * (device_row_major ? columns : rows) &&
         host_row_major == device_row_major;
}

void pack(const void* host, std::size_t elements, bool host_row_major, const ArrayLayout& layout,
          void* device) {
  auto* dst = static_cast<unsigned char*>(device);
  const auto* src = static_cast<const unsigned char*>(host);
  if (layout.is_tight(host_row_major)) {
    std::memcpy(dst + layout.offset, src, elements * 4 * static_cast<std::size_t>(layout.components()));
    return;
  }
  const auto n = static_cast<std::size_t>(layout.components());
  for (std::size_t e = 0; e < elements; ++e) {
    for (int c = 0; c < layout.columns; ++c) {
      for (int r = 0; r < layout.rows; ++r) {
        std::memcpy(dst + device_offset(layout, e, r, c),
                    src + 4 * (e * n + host_index(layout, host_row_major, r, c)), 4);
      }
    }
  }
}

void unpack(const void* device, std::size_t elements, bool host_row_major,
            const ArrayLayout& layout, void* host) {
  const auto* src = static_cast<const unsigned char*>(device);
  auto* dst = static_cast<unsigned char*>(host);
  if (layout.is_tight(host_row_major)) {
    std::memcpy(dst, src + layout.offset, elements * 4 * static_cast<std::size_t>(layout.components()));
    return;
  }
  const auto n = static_cast<std::size_t>(layout.components());
  for (std::size_t e = 0; e < elements; ++e) {
    for (int c = 0; c < layout.columns; ++c) {
      for (int r = 0; r < layout.rows; ++r) {
        std::memcpy(dst + 4 * (e * n + host_index(layout, host_row_major, r, c)),
                    src + device_offset(layout, e, r, c), 4);
      }
    }
  }
}

}  // namespace gpgpu::detail
