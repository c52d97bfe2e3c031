// gpgpu::Texture: exact round trips for every texel type, 2-D, 3-D and wrapped 1-D arrays,
// limits, and binding to samplers and images of compute kernels.
#include <gtest/gtest.h>

#include <cstring>

#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/texture.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::TexelType;
using gpgpu::Texture;
using gpgpu::test::context;

// Values are moved, never computed: every round trip must be bit-exact.
template <class T>
void expect_bits_equal(const std::vector<T>& expected, const std::vector<T>& actual) {
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(0, std::memcmp(&expected[i], &actual[i], sizeof(T))) << "value " << i;
  }
}

template <class T>
std::vector<T> random_values(std::size_t n) {
  if constexpr (std::is_same_v<T, float>) {
    return gpgpu::test::random_floats(n, -1e6f, 1e6f);
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return gpgpu::test::random_ints(n, -2000000000, 2000000000);
  } else {
    return gpgpu::test::random_uints(n, 1, 4000000000u);
  }
}

template <class T>
void round_trip(TexelType type, const std::vector<std::size_t>& shape) {
  std::size_t texels = 1;
  for (auto e : shape) texels *= e;
  const auto data = random_values<T>(texels * static_cast<std::size_t>(gpgpu::components(type)));
  const auto texture = Texture::from(context(), type, shape, data);
  EXPECT_EQ(texture.shape(), shape);
  EXPECT_EQ(texture.length(), texels);
  expect_bits_equal(data, texture.template to_vector<T>());
}

TEST(Texture, RoundTripsEveryTexelType2D) {
  // 5 x 7: odd sizes, so rows are not a multiple of any alignment.
  round_trip<float>(TexelType::Float, {5, 7});
  round_trip<float>(TexelType::Vec2, {5, 7});
  round_trip<float>(TexelType::Vec3, {5, 7});  // RGB32F: read back by the compute copy
  round_trip<float>(TexelType::Vec4, {5, 7});
  round_trip<std::int32_t>(TexelType::Int, {5, 7});
  round_trip<std::uint32_t>(TexelType::Uint, {5, 7});
  round_trip<std::int32_t>(TexelType::IVec4, {5, 7});
  round_trip<std::uint32_t>(TexelType::UVec4, {5, 7});
}

TEST(Texture, RoundTripsEveryTexelType3D) {
  round_trip<float>(TexelType::Float, {3, 5, 7});
  round_trip<float>(TexelType::Vec3, {3, 5, 7});
  round_trip<float>(TexelType::Vec4, {2, 3, 4});
  round_trip<std::int32_t>(TexelType::Int, {3, 5, 7});
  round_trip<std::uint32_t>(TexelType::UVec4, {2, 3, 4});
}

TEST(Texture, ArrayWrapsIntoRowsOfTheGivenWidth) {
  const auto data = gpgpu::test::random_floats(1000);
  const auto texture = Texture::from_array(context(), TexelType::Float, data, 64);
  EXPECT_TRUE(texture.is_array());
  EXPECT_EQ(texture.cols(), 64u);
  EXPECT_EQ(texture.rows(), 16u);  // ceil(1000 / 64)
  EXPECT_EQ(texture.length(), 1000u);
  expect_bits_equal(data, texture.to_vector<float>());

  const auto vec3_data = gpgpu::test::random_floats(3 * 101);
  const auto vec3 = Texture::from_array(context(), TexelType::Vec3, vec3_data, 10);
  EXPECT_EQ(vec3.rows(), 11u);
  expect_bits_equal(vec3_data, vec3.to_vector<float>());
}

TEST(Texture, ShortArrayIsOneRow) {
  const auto data = gpgpu::test::random_ints(5, -100, 100);
  const auto texture = Texture::from_array(context(), TexelType::Int, data);
  EXPECT_EQ(texture.shape(), (std::vector<std::size_t>{1, 5}));
  expect_bits_equal(data, texture.to_vector<std::int32_t>());
}

TEST(Texture, RejectsBadShapesAndSizes) {
  auto& ctx = context();
  const auto max = static_cast<std::size_t>(ctx.info().max_texture_size);
  EXPECT_THROW(Texture(ctx, TexelType::Float, {4}), gpgpu::ArgumentError);
  EXPECT_THROW(Texture(ctx, TexelType::Float, {0, 4}), gpgpu::ArgumentError);
  EXPECT_THROW(Texture(ctx, TexelType::Float, {1, max + 1}), gpgpu::LimitError);
  const auto max3 = static_cast<std::size_t>(ctx.info().max_3d_texture_size);
  EXPECT_THROW(Texture(ctx, TexelType::Float, {max3 + 1, 1, 1}), gpgpu::LimitError);
  // An array longer than max x max texels cannot be stored at any width.
  EXPECT_THROW(Texture::array(ctx, TexelType::Float, max * max + 1), gpgpu::LimitError);
  // With a forced width of 4, max rows hold 4 * max texels.
  EXPECT_THROW(Texture::array(ctx, TexelType::Float, 4 * max + 1, 4), gpgpu::LimitError);
  // vec3 data must be a whole number of texels.
  const std::vector<float> seven(7, 1.5f);
  EXPECT_THROW(Texture::from_array(ctx, TexelType::Vec3, seven), gpgpu::SizeMismatchError);

  Texture t(ctx, TexelType::Float, {2, 3});
  const std::vector<float> five(5, 2.5f);
  EXPECT_THROW(t.upload(five), gpgpu::SizeMismatchError);
  const std::vector<std::int32_t> ints(6, 3);
  EXPECT_THROW(t.upload(ints), gpgpu::TypeMismatchError);
  std::vector<std::int32_t> out(6, gpgpu::test::poison_int);
  EXPECT_THROW(t.download(std::span<std::int32_t>(out)), gpgpu::TypeMismatchError);
  EXPECT_EQ(out, std::vector<std::int32_t>(6, gpgpu::test::poison_int));
}

TEST(Texture, IsMoveOnlyAndReleases) {
  auto& ctx = context();
  Texture a(ctx, TexelType::Vec4, {2, 2});
  const unsigned name = a.gl_name();
  Texture b(std::move(a));
  EXPECT_FALSE(a.valid());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  EXPECT_EQ(b.gl_name(), name);
  b.release();
  EXPECT_FALSE(b.valid());
  EXPECT_THROW(b.to_vector<float>(), gpgpu::Error);
}

// A compute kernel reads a 2-D float texture and a 3-D uint texture through samplers.
TEST(Texture, BindsToComputeSamplers) {
  auto& ctx = context();
  const std::size_t rows = 6, cols = 9, depth = 3;
  const auto a = gpgpu::test::random_floats(rows * cols * 2);  // vec2 texels
  const auto b = gpgpu::test::random_uints(depth * rows * cols, 1, 1000000);
  const auto ta = Texture::from(ctx, TexelType::Vec2, {rows, cols}, a);
  const auto tb = Texture::from(ctx, TexelType::Uint, {depth, rows, cols}, b);
  gpgpu::ComputeKernel k(ctx, R"(
    layout(local_size_x = 8, local_size_y = 8) in;
    uniform sampler2D A;
    uniform usampler3D B;
    layout(std430, binding = 0) writeonly buffer Out { float result[]; };
    layout(std430, binding = 1) writeonly buffer OutU { uint sum[]; };
    void main() {
      ivec2 p = ivec2(gl_GlobalInvocationID.xy);  // x = column, y = row
      if (p.x >= 9 || p.y >= 6) return;
      int i = p.y * 9 + p.x;
      vec4 t = texelFetch(A, p, 0);
      result[i] = t.r - t.g;
      sum[i] = texelFetch(B, ivec3(p, 0), 0).r + texelFetch(B, ivec3(p, 2), 0).r;
    })");
  std::vector<float> result(rows * cols, gpgpu::test::poison_float());
  std::vector<std::uint32_t> sum(rows * cols, gpgpu::test::poison_uint);
  k.run({{"A", ta}, {"B", tb}, {"result", gpgpu::out(result)}, {"sum", gpgpu::out(sum)}},
        gpgpu::Size3{cols, rows, 1});
  for (std::size_t i = 0; i < rows * cols; ++i) {
    // One float32 subtraction, correctly rounded: within eps32 of the float64 difference.
    const double expected = static_cast<double>(a[2 * i]) - static_cast<double>(a[2 * i + 1]);
    EXPECT_NEAR(result[i], expected, gpgpu::test::eps32 * std::abs(expected)) << i;
    EXPECT_EQ(sum[i], b[i] + b[2 * rows * cols + i]) << i;
  }
}

TEST(Texture, SamplerTypeMustMatch) {
  auto& ctx = context();
  gpgpu::ComputeKernel k(ctx, R"(
    layout(local_size_x = 1) in;
    uniform isampler2D A;
    layout(std430, binding = 0) writeonly buffer Out { int result[]; };
    void main() { result[0] = texelFetch(A, ivec2(0), 0).r; })");
  const auto floats = Texture::from(ctx, TexelType::Float, {1, 1}, std::vector<float>{1.5f});
  const auto uints = Texture::from(ctx, TexelType::Uint, {1, 1}, std::vector<std::uint32_t>{7u});
  const auto ints3d = Texture::from(ctx, TexelType::Int, {1, 1, 1}, std::vector<std::int32_t>{7});
  std::vector<std::int32_t> result(1, gpgpu::test::poison_int);
  EXPECT_THROW(k.run({{"A", floats}, {"result", gpgpu::out(result)}}), gpgpu::TypeMismatchError);
  EXPECT_THROW(k.run({{"A", uints}, {"result", gpgpu::out(result)}}), gpgpu::TypeMismatchError);
  EXPECT_THROW(k.run({{"A", ints3d}, {"result", gpgpu::out(result)}}), gpgpu::TypeMismatchError);
  EXPECT_EQ(result[0], gpgpu::test::poison_int);  // unchanged after the failed calls
  const auto ints = Texture::from(ctx, TexelType::Int, {1, 1}, std::vector<std::int32_t>{-42});
  k.run({{"A", ints}, {"result", gpgpu::out(result)}});
  EXPECT_EQ(result[0], -42);
}

// image2D: compute kernels write textures in place (texture storage is immutable, as images
// require), which are then read back. OpenGL ES allows read-write images only for r32f,
// r32i and r32ui; rgba32f images are write-only (or read-only).
TEST(Texture, BindsToComputeImages) {
  auto& ctx = context();
  const std::size_t rows = 5, cols = 11;
  const auto data = gpgpu::test::random_floats(rows * cols);
  auto scalar = Texture::from(ctx, TexelType::Float, {rows, cols}, data);
  gpgpu::ComputeKernel scale(ctx, R"(
    layout(local_size_x = 4, local_size_y = 4) in;
    layout(r32f, binding = 2) uniform highp image2D img;
    uniform float factor;
    void main() {
      ivec2 p = ivec2(gl_GlobalInvocationID.xy);
      if (any(greaterThanEqual(p, imageSize(img)))) return;
      imageStore(img, p, imageLoad(img, p) * factor);
    })");
  scale.run({{"img", scalar}, {"factor", 3.0f}}, gpgpu::Size3{cols, rows, 1});
  const auto scaled = scalar.to_vector<float>();
  for (std::size_t i = 0; i < data.size(); ++i) {
    // One float32 multiplication: correctly rounded.
    const double expected = 3.0 * static_cast<double>(data[i]);
    EXPECT_NEAR(scaled[i], expected, gpgpu::test::eps32 * std::abs(expected)) << i;
  }

  const auto quad = gpgpu::test::random_floats(rows * cols * 4);
  const auto source = Texture::from(ctx, TexelType::Vec4, {rows, cols}, quad);
  Texture target(ctx, TexelType::Vec4, {rows, cols});
  gpgpu::ComputeKernel swizzle(ctx, R"(
    layout(local_size_x = 4, local_size_y = 4) in;
    uniform sampler2D src;
    layout(rgba32f, binding = 1) writeonly uniform highp image2D dst;
    void main() {
      ivec2 p = ivec2(gl_GlobalInvocationID.xy);
      if (any(greaterThanEqual(p, imageSize(dst)))) return;
      imageStore(dst, p, texelFetch(src, p, 0).wzyx);
    })");
  swizzle.run({{"src", source}, {"dst", target}}, gpgpu::Size3{cols, rows, 1});
  const auto swizzled = target.to_vector<float>();
  for (std::size_t t = 0; t < rows * cols; ++t) {
    for (std::size_t c = 0; c < 4; ++c) {
      ASSERT_EQ(swizzled[4 * t + c], quad[4 * t + 3 - c]) << "texel " << t;  // moved, exact
    }
  }
  // vec2 textures have no image format in OpenGL ES; a vec4 texture is not a float image.
  const auto vec2 = Texture::from(ctx, TexelType::Vec2, {1, 1}, std::vector<float>{1, 2});
  EXPECT_THROW(swizzle.run({{"src", source}, {"dst", vec2}}, gpgpu::Size3{1, 1, 1}),
               gpgpu::TypeMismatchError);
  const auto ints = Texture::from(ctx, TexelType::Int, {1, 1}, std::vector<std::int32_t>{1});
  EXPECT_THROW(scale.run({{"img", ints}, {"factor", 1.0f}}, gpgpu::Size3{1, 1, 1}),
               gpgpu::TypeMismatchError);
}

}  // namespace
