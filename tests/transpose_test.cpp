// gpgpu::transpose: every method on square, non-square, odd and degenerate shapes, host
// arrays and Buffers, three element types; every element compared exactly (a transpose
// moves bits, it does no arithmetic).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/transpose.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::Buffer;
using gpgpu::TransposeMethod;
using gpgpu::test::context;
using gpgpu::test::poison_float;
using gpgpu::test::random_floats;

template <class T>
std::vector<T> cpu_transpose(const std::vector<T>& in, std::size_t rows, std::size_t cols) {
  std::vector<T> out(in.size());
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
  }
  return out;
}

template <class T>
void expect_equal(const std::vector<T>& expected, const std::vector<T>& actual, std::size_t rows,
                  std::size_t cols) {
  ASSERT_EQ(expected.size(), actual.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (std::memcmp(&expected[i], &actual[i], sizeof(T)) != 0 && ++bad <= 5) {
      ADD_FAILURE() << "out(" << i / rows << ", " << i % rows << ") of the " << cols << " x "
                    << rows << " result is " << actual[i] << ", expected " << expected[i];
    }
  }
  EXPECT_EQ(bad, 0u);
}

struct Shape {
  std::size_t rows, cols;
};

class TransposeShapes : public ::testing::TestWithParam<std::tuple<TransposeMethod, Shape>> {};

TEST_P(TransposeShapes, HostArraysMatchTheCpu) {
  const auto [method, shape] = GetParam();
  const auto in = random_floats(shape.rows * shape.cols);
  std::vector<float> out(in.size(), poison_float());
  gpgpu::transpose(context(), in, out, shape.rows, shape.cols, method);
  expect_equal(cpu_transpose(in, shape.rows, shape.cols), out, shape.rows, shape.cols);
}

TEST_P(TransposeShapes, BuffersMatchTheCpu) {
  const auto [method, shape] = GetParam();
  const std::size_t n = shape.rows * shape.cols;
  const auto in = random_floats(n);
  Buffer a = Buffer::from(context(), in);
  // One element more than needed: the transpose must not touch it.
  Buffer b = Buffer::from(context(), std::vector<float>(n + 1, poison_float()));
  gpgpu::transpose(context(), a, b, shape.rows, shape.cols, method);
  auto out = b.to_vector<float>();
  EXPECT_TRUE(std::isnan(out.back())) << "the element past the matrix was written";
  out.pop_back();
  expect_equal(cpu_transpose(in, shape.rows, shape.cols), out, shape.rows, shape.cols);
}

INSTANTIATE_TEST_SUITE_P(
    AllMethods, TransposeShapes,
    ::testing::Combine(::testing::Values(TransposeMethod::Naive, TransposeMethod::Tiled,
                                         TransposeMethod::TiledPadded, TransposeMethod::Auto),
                       ::testing::Values(Shape{1, 1}, Shape{37, 1000}, Shape{1000, 37},
                                         Shape{1023, 513}, Shape{64, 64}, Shape{32, 32},
                                         Shape{33, 31}, Shape{1, 777}, Shape{777, 1})),
    [](const auto& param_info) {
      std::string name = gpgpu::to_string(std::get<0>(param_info.param));
      name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
      const Shape s = std::get<1>(param_info.param);
      return name + "_" + std::to_string(s.rows) + "x" + std::to_string(s.cols);
    });

TEST(Transpose, IntegerTypes) {
  const std::size_t rows = 45, cols = 71;
  const auto ints = gpgpu::test::random_ints(rows * cols, -2000000000, 2000000000);
  std::vector<std::int32_t> out_ints(ints.size(), gpgpu::test::poison_int);
  gpgpu::transpose(context(), ints, out_ints, rows, cols, TransposeMethod::TiledPadded);
  EXPECT_EQ(out_ints, cpu_transpose(ints, rows, cols));
  const auto uints = gpgpu::test::random_uints(rows * cols, 1, 0xFFFFFFFFu);
  std::vector<std::uint32_t> out_uints(uints.size(), gpgpu::test::poison_uint);
  gpgpu::transpose(context(), uints, out_uints, rows, cols, TransposeMethod::Naive);
  EXPECT_EQ(out_uints, cpu_transpose(uints, rows, cols));
}

TEST(Transpose, TwiceIsTheIdentity) {
  const std::size_t rows = 129, cols = 67;
  const auto in = random_floats(rows * cols);
  Buffer a = Buffer::from(context(), in);
  Buffer b(context(), gpgpu::ElementType::Float32, in.size());
  Buffer c = Buffer::from(context(), std::vector<float>(in.size(), poison_float()));
  gpgpu::transpose(context(), a, b, rows, cols, TransposeMethod::Tiled);
  gpgpu::transpose(context(), b, c, cols, rows, TransposeMethod::Naive);
  expect_equal(in, c.to_vector<float>(), cols, rows);
}

TEST(Transpose, BadArgumentsAreSpecificErrors) {
  std::vector<float> in = random_floats(12), out(12, poison_float());
  EXPECT_THROW(gpgpu::transpose(context(), in, out, 0, 12), gpgpu::ArgumentError);
  EXPECT_THROW(gpgpu::transpose(context(), in, out, 3, 0), gpgpu::ArgumentError);
  EXPECT_THROW(gpgpu::transpose(context(), in, out, 3, 5), gpgpu::SizeMismatchError);
  std::vector<float> short_out(11);
  EXPECT_THROW(gpgpu::transpose(context(), in, short_out, 3, 4), gpgpu::SizeMismatchError);
  EXPECT_THROW(gpgpu::transpose(context(), in, out, std::size_t{1} << 20, std::size_t{1} << 20),
               gpgpu::LimitError);
  for (float v : out) EXPECT_TRUE(std::isnan(v)) << "a rejected call wrote its output";

  Buffer a = Buffer::from(context(), in);
  Buffer ints = Buffer::from(context(), std::vector<std::int32_t>(12, 1));
  EXPECT_THROW(gpgpu::transpose(context(), a, a, 3, 4), gpgpu::ArgumentError);
  EXPECT_THROW(gpgpu::transpose(context(), a, ints, 3, 4), gpgpu::TypeMismatchError);
  Buffer small(context(), gpgpu::ElementType::Float32, 11);
  EXPECT_THROW(gpgpu::transpose(context(), a, small, 3, 4), gpgpu::SizeMismatchError);
  Buffer released = Buffer::from(context(), in);
  released.release();
  EXPECT_THROW(gpgpu::transpose(context(), released, small, 3, 4), gpgpu::ArgumentError);

  EXPECT_EQ(gpgpu::transpose_method_from_string("tiled-padded"), TransposeMethod::TiledPadded);
  EXPECT_THROW(gpgpu::transpose_method_from_string("diagonal"), gpgpu::ArgumentError);
  EXPECT_THROW(
      gpgpu::transpose_kernel_source(TransposeMethod::Tiled, gpgpu::ElementType::Float32, 32, 5),
      gpgpu::ArgumentError);
}

}  // namespace
