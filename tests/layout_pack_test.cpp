// detail::pack / detail::unpack: flat host arrays to and from std430/std140 device layouts.
// Expected device images are written out by hand from the GLSL ES 3.1 layout rules (section
// 7.6.2.2 of the OpenGL ES 3.1 spec), not computed with the code under test.
#include <cstdint>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "binding/layout_pack.hpp"

namespace {

using gpgpu::detail::ArrayLayout;

// Padding bytes must stay as they were: fill them with this and check it survives.
constexpr std::uint32_t kPad = 0xDEADBEEFu;

// Host values 1, 2, 3, ... so that every word is distinct and its origin is readable.
std::vector<std::uint32_t> counting(std::size_t n) {
  std::vector<std::uint32_t> v(n);
  std::iota(v.begin(), v.end(), 1u);
  return v;
}

ArrayLayout make_layout(int rows, int columns, std::int64_t offset, std::int64_t array_stride,
                        std::int64_t matrix_stride, bool device_row_major) {
  ArrayLayout l;
  l.rows = rows;
  l.columns = columns;
  l.offset = offset;
  l.array_stride = array_stride;
  l.matrix_stride = matrix_stride;
  l.device_row_major = device_row_major;
  return l;
}

// Packs `host` into a device image of `device_words` words pre-filled with kPad, checks the
// image, then unpacks it and checks the host array comes back unchanged.
void check_round_trip(const std::vector<std::uint32_t>& host, std::size_t elements,
                      bool host_row_major, const ArrayLayout& layout,
                      const std::vector<std::uint32_t>& want_device) {
  ASSERT_EQ(layout.device_bytes(elements), want_device.size() * 4);
  std::vector<std::uint32_t> device(want_device.size(), kPad);
  gpgpu::detail::pack(host.data(), elements, host_row_major, layout, device.data());
  EXPECT_EQ(device, want_device);
  std::vector<std::uint32_t> back(host.size(), kPad);
  gpgpu::detail::unpack(device.data(), elements, host_row_major, layout, back.data());
  EXPECT_EQ(back, host);
}

constexpr std::uint32_t P = kPad;

TEST(LayoutPack, FloatArrayIsACopy) {
  const auto layout = make_layout(1, 1, 0, 4, 0, false);
  EXPECT_TRUE(layout.is_tight(false));
  check_round_trip(counting(5), 5, false, layout, {1, 2, 3, 4, 5});
}

TEST(LayoutPack, Std140FloatArrayHasA16ByteStride) {
  const auto layout = make_layout(1, 1, 0, 16, 0, false);
  EXPECT_FALSE(layout.is_tight(false));
  check_round_trip(counting(3), 3, false, layout, {1, P, P, P, 2, P, P, P, 3, P, P, P});
}

TEST(LayoutPack, Vec3ArrayIsPaddedTo16Bytes) {
  const auto layout = make_layout(3, 1, 0, 16, 0, false);
  EXPECT_FALSE(layout.is_tight(false));
  check_round_trip(counting(9), 3, false, layout, {1, 2, 3, P, 4, 5, 6, P, 7, 8, 9, P});
}

TEST(LayoutPack, Vec2AndVec4ArraysAreTight) {
  EXPECT_TRUE(make_layout(2, 1, 0, 8, 0, false).is_tight(false));
  EXPECT_TRUE(make_layout(4, 1, 0, 16, 0, false).is_tight(false));
  check_round_trip(counting(6), 3, false, make_layout(2, 1, 0, 8, 0, false), {1, 2, 3, 4, 5, 6});
}

TEST(LayoutPack, OffsetOfTheArrayInsideTheBlock) {
  // buffer B { vec4 header; vec3 v[]; }: the array starts at byte 16.
  const auto layout = make_layout(3, 1, 16, 16, 0, false);
  check_round_trip(counting(6), 2, false, layout, {P, P, P, P, 1, 2, 3, P, 4, 5, 6, P});
}

TEST(LayoutPack, Mat2ColumnMajorIsTightOnlyForColumnMajorHosts) {
  const auto layout = make_layout(2, 2, 0, 16, 8, false);
  EXPECT_TRUE(layout.is_tight(false));
  EXPECT_FALSE(layout.is_tight(true));
  // Host column-major: a copy.
  check_round_trip(counting(8), 2, false, layout, {1, 2, 3, 4, 5, 6, 7, 8});
  // Host row-major [[1 2] [3 4]]: columns (1 3) and (2 4).
  check_round_trip(counting(8), 2, true, layout, {1, 3, 2, 4, 5, 7, 6, 8});
}

TEST(LayoutPack, Mat3ColumnsArePaddedTo16Bytes) {
  // std430 mat3: three vec3 columns, each aligned to 16 bytes; 48 bytes per matrix.
  const auto layout = make_layout(3, 3, 0, 48, 16, false);
  EXPECT_FALSE(layout.is_tight(false));
  // Host column-major: columns (1 2 3) (4 5 6) (7 8 9).
  check_round_trip(counting(9), 1, false, layout, {1, 2, 3, P, 4, 5, 6, P, 7, 8, 9, P});
  // Host row-major rows (1 2 3) (4 5 6) (7 8 9): columns (1 4 7) (2 5 8) (3 6 9).
  check_round_trip(counting(18), 2, true, layout, {1,  4,  7,  P, 2,  5,  8,  P, 3,  6,  9,  P,
                                                   10, 13, 16, P, 11, 14, 17, P, 12, 15, 18, P});
}

TEST(LayoutPack, Mat3RowMajorDeviceStoresPaddedRows) {
  // layout(row_major) mat3: three vec3 rows, each aligned to 16 bytes.
  const auto layout = make_layout(3, 3, 0, 48, 16, true);
  // Host row-major: rows are stored as they are, padded.
  check_round_trip(counting(9), 1, true, layout, {1, 2, 3, P, 4, 5, 6, P, 7, 8, 9, P});
  // Host column-major columns (1 2 3) (4 5 6) (7 8 9): rows (1 4 7) (2 5 8) (3 6 9).
  check_round_trip(counting(9), 1, false, layout, {1, 4, 7, P, 2, 5, 8, P, 3, 6, 9, P});
}

TEST(LayoutPack, Mat4RowMajorDeviceWithRowMajorHostIsTight) {
  const auto layout = make_layout(4, 4, 0, 64, 16, true);
  EXPECT_TRUE(layout.is_tight(true));
  EXPECT_FALSE(layout.is_tight(false));
  check_round_trip(counting(16), 1, true, layout, counting(16));
}

TEST(LayoutPack, NonSquareMatrices) {
  // mat2x3: 2 columns of 3 rows. Column-major device: two padded vec3 columns, 32 bytes.
  const auto column_major = make_layout(3, 2, 0, 32, 16, false);
  // Host column-major columns (1 2 3) (4 5 6).
  check_round_trip(counting(6), 1, false, column_major, {1, 2, 3, P, 4, 5, 6, P});
  // Host row-major rows (1 2) (3 4) (5 6): columns (1 3 5) (2 4 6).
  check_round_trip(counting(6), 1, true, column_major, {1, 3, 5, P, 2, 4, 6, P});
  // Row-major device: three vec2 rows of 8 bytes, 24 bytes per matrix, no padding.
  const auto row_major = make_layout(3, 2, 0, 24, 8, true);
  EXPECT_TRUE(row_major.is_tight(true));
  check_round_trip(counting(12), 2, true, row_major, counting(12));
  check_round_trip(counting(6), 1, false, row_major, {1, 4, 2, 5, 3, 6});
  // mat3x2: 3 columns of 2 rows, column-major: three vec2 columns, tight.
  const auto mat3x2 = make_layout(2, 3, 0, 24, 8, false);
  EXPECT_TRUE(mat3x2.is_tight(false));
  // Host row-major rows (1 2 3) (4 5 6): columns (1 4) (2 5) (3 6).
  check_round_trip(counting(6), 1, true, mat3x2, {1, 4, 2, 5, 3, 6});
}

TEST(LayoutPack, Std140Mat2HasPaddedColumns) {
  // std140 rounds every column up to vec4: mat2 columns 16 bytes apart, 32 bytes a matrix.
  const auto layout = make_layout(2, 2, 0, 32, 16, false);
  check_round_trip(counting(4), 1, false, layout, {1, 2, P, P, 3, 4, P, P});
}

}  // namespace
