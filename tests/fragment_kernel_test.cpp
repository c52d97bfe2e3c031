// FragmentKernel: 2-D grids, multiple render targets of every renderable type, wrapped 1-D
// grids, ping-pong between Textures, and errors that leave the caller's data unchanged.
#include <gtest/gtest.h>

#include <cmath>

#include "gpgpu/error.hpp"
#include "gpgpu/fragment_kernel.hpp"
#include "gpgpu/texture.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::FragmentKernel;
using gpgpu::TexelType;
using gpgpu::Texture;
using gpgpu::test::context;
using gpgpu::test::eps32;
using gpgpu::test::poison_float;
using gpgpu::test::random_floats;

TEST(FragmentKernel, ComputesEveryElementOfA2DGrid) {
  auto& ctx = context();
  FragmentKernel k(ctx, R"(
    uniform sampler2D A;
    uniform sampler2D B;
    uniform float c;
    out float R;
    void main() {
      ivec2 p = gpgpu_coord();  // (column, row)
      R = texelFetch(A, p, 0).r * texelFetch(B, p, 0).r + c;
    })");
  const std::size_t rows = 13, cols = 17;  // odd, non-square
  const auto a = random_floats(rows * cols), b = random_floats(rows * cols);
  const float c = 0.375f;
  std::vector<float> r(rows * cols, poison_float());
  k.run({{"A", Texture::from(ctx, TexelType::Float, {rows, cols}, a)},
         {"B", Texture::from(ctx, TexelType::Float, {rows, cols}, b)},
         {"c", c},
         {"R", r}},
        rows, cols);
  for (std::size_t i = 0; i < rows * cols; ++i) {
    const double product = double(a[i]) * b[i], exact = product + c;
    // A product and a sum: at most two roundings, each within eps32 of its result, so
    // within 2 eps32 (|a b| + |c|) (an FMA rounds once).
    ASSERT_NEAR(r[i], exact, 2 * eps32 * (std::abs(product) + std::abs(c))) << i;
  }
}

TEST(FragmentKernel, WritesSeveralRenderTargetsOfEveryType) {
  auto& ctx = context();
  const std::string source = R"(
    uniform isampler2D I;
    layout(location = 0) out float F;
    layout(location = 1) out vec4 V;
    layout(location = 2) out int N;
    layout(location = 3) out uint U;
    layout(location = 5) out ivec4 Q;   // a gap at location 4
    layout(location = 6) out uvec4 P;
    layout(location = 7) out vec2 T;
    void main() {
      ivec2 p = gpgpu_coord();
      int i = texelFetch(I, p, 0).r;
      F = float(p.x) + 0.5;
      V = vec4(p, -p.x, float(i));
      N = i;
      U = uint(i) ^ 0xF0F0F0F0u;
      Q = ivec4(i, p, gpgpu_index());
      P = uvec4(p, gpgpu_width, gpgpu_count);
      T = vec2(p.y, 0.25);
    })";
  // Eight render targets, one of them vec2: a device with fewer (OpenGL ES 3.1 guarantees 4)
  // or without float ones (vec2 has no integer twin) must refuse the kernel by name.
  if (ctx.info().max_draw_buffers < 8 || !ctx.info().has_color_buffer_float()) {
    const std::string message =
        gpgpu::test::error_message_of([&] { FragmentKernel refused(ctx, source); });
    EXPECT_TRUE(message.find("GL_MAX_DRAW_BUFFERS") != std::string::npos ||
                message.find("GL_EXT_color_buffer_float") != std::string::npos)
        << message;
    return;
  }
  FragmentKernel k(ctx, source);
  const std::size_t rows = 9, cols = 11;
  // Small enough that float(i) is exact.
  const auto ints = gpgpu::test::random_ints(rows * cols, -1000000, 1000000);
  std::vector<float> f(rows * cols, poison_float()), v(4 * rows * cols, poison_float()),
      t(2 * rows * cols, poison_float());
  std::vector<std::int32_t> n(rows * cols, gpgpu::test::poison_int),
      q(4 * rows * cols, gpgpu::test::poison_int);
  std::vector<std::uint32_t> u(rows * cols, gpgpu::test::poison_uint),
      p(4 * rows * cols, gpgpu::test::poison_uint);
  k.run({{"I", Texture::from(ctx, TexelType::Int, {rows, cols}, ints)},
         {"F", f},
         {"V", v},
         {"N", n},
         {"U", u},
         {"Q", q},
         {"P", p},
         {"T", t}},
        rows, cols);
  for (std::size_t row = 0; row < rows; ++row) {
    for (std::size_t col = 0; col < cols; ++col) {  // every value exact
      const std::size_t e = row * cols + col;
      const auto x = static_cast<float>(col), y = static_cast<float>(row);
      ASSERT_EQ(f[e], x + 0.5f);
      ASSERT_EQ(v[4 * e + 0], x);
      ASSERT_EQ(v[4 * e + 1], y);
      ASSERT_EQ(v[4 * e + 2], -x);
      ASSERT_EQ(v[4 * e + 3], static_cast<float>(ints[e]));
      ASSERT_EQ(n[e], ints[e]);
      ASSERT_EQ(u[e], static_cast<std::uint32_t>(ints[e]) ^ 0xF0F0F0F0u);
      ASSERT_EQ(q[4 * e + 0], ints[e]);
      ASSERT_EQ(q[4 * e + 1], static_cast<std::int32_t>(col));
      ASSERT_EQ(q[4 * e + 2], static_cast<std::int32_t>(row));
      ASSERT_EQ(q[4 * e + 3], static_cast<std::int32_t>(e));
      ASSERT_EQ(p[4 * e + 2], cols);
      ASSERT_EQ(p[4 * e + 3], rows * cols);
      ASSERT_EQ(t[2 * e + 0], y);
      ASSERT_EQ(t[2 * e + 1], 0.25f);
    }
  }
}

// A 1-D array longer than a (forced small) row: the output grid and the input texture are
// both wrapped, with different widths, and every element is computed exactly once.
TEST(FragmentKernel, WrapsLong1DArraysIntoRows) {
  auto& ctx = context();
  FragmentKernel k(ctx, R"(
    uniform sampler2D X;    // 1-D array in rows of 7
    uniform usampler2D C;   // 10 everywhere
    layout(location = 0) out float Y;
    layout(location = 1) out uint Seen;  // 11 where gpgpu_index() < gpgpu_count
    void main() {
      int i = gpgpu_index();
      Y = 2.0 * gpgpu_fetch(X, i).r + float(i);
      Seen = gpgpu_fetch(C, i).r + uint(i < gpgpu_count);
    })");
  k.set_max_width(16);
  const std::size_t n = 1001;  // 62 full rows of 16 and 9 in the last
  const auto x = random_floats(n, -1000, 1000);
  const std::vector<std::uint32_t> zeros_plus(n, 10);
  std::vector<float> y(n, poison_float());
  std::vector<std::uint32_t> seen(n, gpgpu::test::poison_uint);
  k.run({{"X", Texture::from_array(ctx, TexelType::Float, x, 7)},
         {"C", Texture::from_array(ctx, TexelType::Uint, zeros_plus, 5)},
         {"Y", y},
         {"Seen", seen}});
  for (std::size_t i = 0; i < n; ++i) {
    // 2x is exact; adding i rounds once.
    const double exact = 2.0 * x[i] + static_cast<double>(i);
    ASSERT_NEAR(y[i], exact, eps32 * std::abs(exact)) << i;
    ASSERT_EQ(seen[i], 11u) << i;
  }
  // Into a Texture array output, kept on the GPU: the grid follows the texture.
  auto out = Texture::array(ctx, TexelType::Float, n, 16);
  auto out_seen = Texture::array(ctx, TexelType::Uint, n, 16);
  k.run({{"X", Texture::from_array(ctx, TexelType::Float, x, 7)},
         {"C", Texture::from_array(ctx, TexelType::Uint, zeros_plus, 5)},
         {"Y", out},
         {"Seen", out_seen}});
  EXPECT_EQ(out.to_vector<float>(), y);
  EXPECT_EQ(out_seen.to_vector<std::uint32_t>(), seen);
}

// Textures rendered by one pass are sampled by the next, never leaving the GPU.
TEST(FragmentKernel, PingPongsBetweenTextures) {
  auto& ctx = context();
  FragmentKernel step(ctx, R"(
    uniform usampler2D Previous;
    out uint Next;
    void main() {
      ivec2 p = gpgpu_coord();
      Next = texelFetch(Previous, p, 0).r * 2654435761u + uint(gpgpu_index());
    })");
  const std::size_t rows = 6, cols = 10;
  const auto start = gpgpu::test::random_uints(rows * cols, 1, 4000000000u);
  Texture ping = Texture::from(ctx, TexelType::Uint, {rows, cols}, start);
  Texture pong(ctx, TexelType::Uint, {rows, cols});
  std::vector<std::uint32_t> expected = start;
  for (int pass = 0; pass < 5; ++pass) {
    step.run({{"Previous", ping}, {"Next", pong}});
    std::swap(ping, pong);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      expected[i] = expected[i] * 2654435761u + static_cast<std::uint32_t>(i);  // mod 2^32
    }
  }
  EXPECT_EQ(ping.to_vector<std::uint32_t>(), expected);
  // Reading and writing one texture in the same pass is refused.
  EXPECT_THROW(step.run({{"Previous", ping}, {"Next", ping}}), gpgpu::ArgumentError);
}

TEST(FragmentKernel, ErrorsNameTheProblemAndChangeNothing) {
  auto& ctx = context();
  FragmentKernel k(ctx, R"(
    uniform sampler2D A;
    layout(location = 0) out float R;
    layout(location = 1) out vec4 S;
    void main() { vec4 a = texelFetch(A, gpgpu_coord(), 0); R = a.r; S = a; })");
  const auto a = Texture::from(ctx, TexelType::Float, {4, 5}, random_floats(20));
  const std::vector<float> poisoned_r(20, -7.25f), poisoned_s(80, -7.25f);
  std::vector<float> r = poisoned_r, s = poisoned_s;
  auto unchanged = [&] {
    EXPECT_EQ(r, poisoned_r);
    EXPECT_EQ(s, poisoned_s);
  };
  EXPECT_THROW(k.run({{"A", a}, {"R", r}}, 4, 5), gpgpu::MissingArgumentError);
  unchanged();
  EXPECT_THROW(k.run({{"A", a}, {"R", r}, {"S", s}, {"B", a}}, 4, 5), gpgpu::UnknownArgumentError);
  unchanged();
  // A grid that does not match the host arrays.
  EXPECT_THROW(k.run({{"A", a}, {"R", r}, {"S", s}}, 4, 6), gpgpu::SizeMismatchError);
  unchanged();
  // Host outputs that disagree, with no grid given.
  std::vector<float> s_short(76, -7.25f);
  EXPECT_THROW(k.run({{"A", a}, {"R", r}, {"S", s_short}}), gpgpu::SizeMismatchError);
  unchanged();
  // vec4 data that is not a whole number of vec4s.
  std::vector<float> s_ragged(78, -7.25f);
  EXPECT_THROW(k.run({{"A", a}, {"R", r}, {"S", s_ragged}}, 4, 5), gpgpu::SizeMismatchError);
  // Int data for a float output; an int texture for the sampler2D.
  std::vector<std::int32_t> ints(20, 1);
  EXPECT_THROW(k.run({{"A", a}, {"R", ints}, {"S", s}}, 4, 5), gpgpu::TypeMismatchError);
  const auto int_texture = Texture::from(ctx, TexelType::Int, {4, 5}, ints);
  EXPECT_THROW(k.run({{"A", int_texture}, {"R", r}, {"S", s}}, 4, 5), gpgpu::TypeMismatchError);
  unchanged();
  // A Texture output of the wrong texel type or shape.
  Texture vec2_target(ctx, TexelType::Vec2, {4, 5});
  EXPECT_THROW(k.run({{"A", a}, {"R", vec2_target}, {"S", s}}, 4, 5), gpgpu::TypeMismatchError);
  Texture small_target(ctx, TexelType::Float, {4, 4});
  EXPECT_THROW(k.run({{"A", a}, {"R", small_target}, {"S", s}}), gpgpu::SizeMismatchError);
  unchanged();
  // A grid larger than any render target.
  const auto max = static_cast<std::size_t>(ctx.info().max_texture_size);
  EXPECT_THROW(k.run({{"A", a}, {"R", r}, {"S", s}}, 1, max + 1), gpgpu::LimitError);
  unchanged();
}

// A 1-D grid holds at most (limit) rows of the row width; beyond that nothing is truncated.
TEST(FragmentKernel, OneDimensionalGridBeyondTheLimitIsRefused) {
  auto& ctx = context();
  FragmentKernel k(ctx, "out float Y; void main() { Y = float(gpgpu_index()); }");
  k.set_max_width(4);  // rows of 4: at most 4 x GL_MAX_TEXTURE_SIZE elements
  const auto max = static_cast<std::size_t>(ctx.info().max_texture_size);
  std::vector<float> too_many(4 * max + 1, -7.25f);
  EXPECT_THROW(k.run({{"Y", too_many}}), gpgpu::LimitError);
  EXPECT_EQ(too_many, std::vector<float>(4 * max + 1, -7.25f));
  std::vector<float> just_fits(4 * max, poison_float());
  k.run({{"Y", just_fits}});
  for (std::size_t i = 0; i < just_fits.size(); ++i) {
    ASSERT_EQ(just_fits[i], static_cast<float>(i)) << i;  // below 2^24: exact
  }
}

TEST(FragmentKernel, UnrenderableOutputsAreRefused) {
  auto& ctx = context();
  // RGB32F is not colour-renderable in OpenGL ES: refused when the kernel is made, as the
  // header promises, not at the first run.
  try {
    FragmentKernel vec3_kernel(ctx, "out vec3 C; void main() { C = vec3(1.0, 2.0, 3.0); }");
    ADD_FAILURE() << "a vec3 render target was accepted";
  } catch (const gpgpu::UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("declare it vec4"), std::string::npos) << e.what();
  }
  EXPECT_THROW(FragmentKernel(ctx, "out ivec2 C; void main() { C = ivec2(1); }"),
               gpgpu::UnsupportedError);
  EXPECT_THROW(
      FragmentKernel(ctx, "out vec4 C[2]; void main() { C[0] = vec4(1); C[1] = vec4(2); }"),
      gpgpu::UnsupportedError);
}

}  // namespace
