// TransformFeedbackKernel: every input and output type, uniforms, samplers, Buffers, the
// capture modes, and every error leaving the caller's arrays unchanged.
#include <gtest/gtest.h>

#include <cmath>

#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/texture.hpp"
#include "gpgpu/transform_feedback_kernel.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::TransformFeedbackKernel;
using gpgpu::test::context;
using gpgpu::test::eps32;
using gpgpu::test::poison_float;
using gpgpu::test::random_floats;

// Error bound of an n-term float32 sum of products, relative to sum |a_i b_i|: each of the
// n products and n - 1 additions rounds once (FMA only removes roundings), so the error is
// at most gamma(n) = n u / (1 - n u) times that sum (Higham, Accuracy and Stability, 3.1).
double gamma(int n) {
  return n * eps32 / (1 - n * eps32);
}

TEST(TransformFeedback, AddsAndMultipliesRandomArrays) {
  TransformFeedbackKernel k(context(), R"(
    in float A;
    in float B;
    out float C;
    out float D;
    void main() { C = A + B; D = A * B; })");
  EXPECT_TRUE(k.captures_separately());
  const std::size_t n = 1001;
  const auto a = random_floats(n, -100, 100), b = random_floats(n, -100, 100);
  std::vector<float> c(n, poison_float()), d(n, poison_float());
  k.run({{"A", a}, {"B", b}, {"C", c}, {"D", d}});
  for (std::size_t i = 0; i < n; ++i) {
    const double sum = double(a[i]) + b[i], product = double(a[i]) * b[i];
    // One correctly rounded operation each.
    ASSERT_NEAR(c[i], sum, eps32 * std::abs(sum)) << i;
    ASSERT_NEAR(d[i], product, eps32 * std::abs(product)) << i;
  }
}

TEST(TransformFeedback, VectorsAndMatricesPerElement) {
  TransformFeedbackKernel k(context(), R"(
    in vec3 A;
    in mat3 M;
    out vec3 C;
    out float D;
    void main() { C = M * A; D = dot(A, A); })");
  const std::size_t n = 77;
  const auto a = random_floats(3 * n), m = random_floats(9 * n);
  std::vector<float> c(3 * n, poison_float()), d(n, poison_float());
  // M's host data is row-major per element: gpgpu transposes it into GLSL's columns.
  k.run({{"A", a}, {"M", gpgpu::row_major(m)}, {"C", c}, {"D", d}});
  for (std::size_t e = 0; e < n; ++e) {
    double dot = 0;
    for (int i = 0; i < 3; ++i) dot += double(a[3 * e + i]) * a[3 * e + i];
    ASSERT_NEAR(d[e], dot, gamma(3) * dot) << e;
    for (int row = 0; row < 3; ++row) {
      double exact = 0, magnitude = 0;
      for (int col = 0; col < 3; ++col) {
        const double term = double(m[9 * e + 3 * row + col]) * a[3 * e + col];
        exact += term;
        magnitude += std::abs(term);
      }
      ASSERT_NEAR(c[3 * e + row], exact, gamma(3) * magnitude) << e << "," << row;
    }
  }
}

TEST(TransformFeedback, MatrixOutputsColumnMajorOrTransposed) {
  // A mat3 output has 9 components, more than the 4 separate components OpenGL ES
  // guarantees: devices with only 4 capture this kernel interleaved (llvmpipe has 64).
  TransformFeedbackKernel k(context(), R"(
    in vec3 U;
    in vec3 V;
    out mat3 Outer;
    out mat2 Small;
    void main() {
      Outer = outerProduct(U, V);        // Outer[col][row] = U[row] * V[col]
      Small = mat2(U.x, U.y, V.x, V.y);  // columns (U.x, U.y) and (V.x, V.y)
    })");
  const std::size_t n = 40;
  const auto u = random_floats(3 * n), v = random_floats(3 * n);
  std::vector<float> outer(9 * n, poison_float()), small(4 * n, poison_float());
  std::vector<float> outer_rows(9 * n, poison_float());
  k.run({{"U", u}, {"V", v}, {"Outer", outer}, {"Small", small}});
  k.run({{"U", u}, {"V", v}, {"Outer", gpgpu::row_major(outer_rows)}, {"Small", small}});
  for (std::size_t e = 0; e < n; ++e) {
    for (int col = 0; col < 3; ++col) {
      for (int row = 0; row < 3; ++row) {
        const double exact = double(u[3 * e + row]) * v[3 * e + col];  // one rounding
        ASSERT_NEAR(outer[9 * e + 3 * col + row], exact, eps32 * std::abs(exact));
        ASSERT_NEAR(outer_rows[9 * e + 3 * row + col], exact, eps32 * std::abs(exact));
      }
    }
    // Moved, not computed: exact.
    ASSERT_EQ(small[4 * e + 0], u[3 * e + 0]);
    ASSERT_EQ(small[4 * e + 1], u[3 * e + 1]);
    ASSERT_EQ(small[4 * e + 2], v[3 * e + 0]);
    ASSERT_EQ(small[4 * e + 3], v[3 * e + 1]);
  }
}

TEST(TransformFeedback, IntegersArriveAndLeaveExactly) {
  TransformFeedbackKernel k(context(), R"(
    in ivec2 A;
    in uvec3 B;
    in int S;
    flat out int Sum;
    flat out uvec3 Twice;
    flat out ivec4 Mixed;
    void main() {
      Sum = A.x + A.y + S;
      Twice = B * 2u;
      Mixed = ivec4(A, S, int(B.z & 0xFFFFu));
    })");
  const std::size_t n = 333;
  // Beyond 2^24, where a float conversion would round: integers must not pass through float.
  const auto a = gpgpu::test::random_ints(2 * n, -600000000, 600000000);
  const auto b = gpgpu::test::random_uints(3 * n, 20000000, 2000000000);
  const auto s = gpgpu::test::random_ints(n, -900000000, 900000000);
  std::vector<std::int32_t> sum(n, gpgpu::test::poison_int), mixed(4 * n, gpgpu::test::poison_int);
  std::vector<std::uint32_t> twice(3 * n, gpgpu::test::poison_uint);
  k.run({{"A", a}, {"B", b}, {"S", s}, {"Sum", sum}, {"Twice", twice}, {"Mixed", mixed}});
  for (std::size_t e = 0; e < n; ++e) {
    ASSERT_EQ(sum[e], a[2 * e] + a[2 * e + 1] + s[e]) << e;
    for (int i = 0; i < 3; ++i) ASSERT_EQ(twice[3 * e + i], b[3 * e + i] * 2u) << e;
    ASSERT_EQ(mixed[4 * e + 0], a[2 * e]);
    ASSERT_EQ(mixed[4 * e + 1], a[2 * e + 1]);
    ASSERT_EQ(mixed[4 * e + 2], s[e]);
    ASSERT_EQ(mixed[4 * e + 3], static_cast<std::int32_t>(b[3 * e + 2] & 0xFFFFu));
  }
}

TEST(TransformFeedback, CountComesFromOutputsWhenThereAreNoInputs) {
  TransformFeedbackKernel k(context(), R"(
    uniform float scale;
    out float C;
    flat out int Index;
    void main() { C = scale * float(gpgpu_index()); Index = gpgpu_count - gl_VertexID; })");
  const std::size_t n = 257;
  std::vector<float> c(n, poison_float());
  std::vector<std::int32_t> index(n, gpgpu::test::poison_int);
  k.run({{"scale", 0.5f}, {"C", c}, {"Index", index}});
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(c[i], 0.5f * static_cast<float>(i));  // halving is exact
    ASSERT_EQ(index[i], static_cast<std::int32_t>(n - i));
  }
}

TEST(TransformFeedback, ManyOutputsAreInterleavedAndSplit) {
  // Five outputs exceed the 4 separate attributes OpenGL ES guarantees (and llvmpipe has).
  TransformFeedbackKernel k(context(), R"(
    in float A;
    out float O1;
    out vec2 O2;
    out float O3;
    out vec4 O4;
    flat out uint O5;
    out mat2x3 O6;  // 2 columns of 3
    void main() {
      O1 = A;
      O2 = vec2(A, -A);
      O3 = A * 2.0;
      O4 = vec4(A, 1.0, 2.0, 3.0);
      O5 = uint(gl_VertexID) + 7u;
      O6 = mat2x3(A, 2.0, 3.0, 4.0, 5.0, -A);
    })");
  if (k.captures_separately()) GTEST_SKIP() << "this device captures 5 outputs separately";
  const std::size_t n = 50;
  const auto a = random_floats(n);
  std::vector<float> o1(n, poison_float()), o2(2 * n, poison_float()), o3(n, poison_float());
  gpgpu::Buffer o4(context(), gpgpu::ElementType::Float32, 4 * n);  // a Buffer output too
  std::vector<std::uint32_t> o5(n, gpgpu::test::poison_uint);
  std::vector<float> o6(6 * n, poison_float());  // read back row-major: 3 rows of 2
  k.run({{"A", a},
         {"O1", o1},
         {"O2", o2},
         {"O3", o3},
         {"O4", o4},
         {"O5", o5},
         {"O6", gpgpu::row_major(o6)}});
  const auto v4 = o4.to_vector<float>();
  for (std::size_t i = 0; i < n; ++i) {  // all exact: copies, negation, doubling
    ASSERT_EQ(o1[i], a[i]);
    ASSERT_EQ(o2[2 * i], a[i]);
    ASSERT_EQ(o2[2 * i + 1], -a[i]);
    ASSERT_EQ(o3[i], 2 * a[i]);
    ASSERT_EQ(v4[4 * i], a[i]);
    ASSERT_EQ(v4[4 * i + 1], 1.0f);
    ASSERT_EQ(v4[4 * i + 3], 3.0f);
    ASSERT_EQ(o5[i], i + 7);
    const std::vector<float> rows = {a[i], 4.0f, 2.0f, 5.0f, 3.0f, -a[i]};
    ASSERT_EQ(std::vector<float>(o6.begin() + 6 * i, o6.begin() + 6 * i + 6), rows) << i;
  }
}

TEST(TransformFeedback, UniformsOfEveryType) {
  TransformFeedbackKernel k(context(), R"(
    uniform float f; uniform vec2 f2; uniform vec3 f3; uniform vec4 f4;
    uniform int i1; uniform ivec2 i2; uniform ivec3 i3; uniform ivec4 i4;
    uniform uint u1; uniform uvec2 u2; uniform uvec3 u3; uniform uvec4 u4;
    uniform bool flag;
    uniform mat2 m2; uniform mat3 m3; uniform mat4 m4;
    uniform mat2x3 m23; uniform mat3x2 m32; uniform mat4x3 m43;
    uniform float weights[3];
    out vec4 F;
    flat out ivec4 I;
    flat out uvec4 U;
    out vec4 M;
    void main() {
      F = vec4(f, f2.y, f3.z, f4.w) + weights[2];
      I = ivec4(i1, i2.y, i3.z, i4.w) * (flag ? 1 : -1);
      U = uvec4(u1, u2.y, u3.z, u4.w);
      M = vec4(m2[1][0], m3[2][1], m4[3][2], m23[1][2] + m32[2][1] + m43[3][2]);
    })");
  std::vector<float> f(4 * 3, poison_float()), m(4 * 3, poison_float());
  std::vector<std::int32_t> i(4 * 3, gpgpu::test::poison_int);
  std::vector<std::uint32_t> u(4 * 3, gpgpu::test::poison_uint);
  std::array<float, 4> mat2{1, 2, 3, 4};  // columns (1,2) (3,4): m2[1][0] = 3
  std::array<float, 9> mat3{};
  mat3[2 * 3 + 1] = 5;  // m3[2][1]
  std::array<float, 16> mat4{};
  mat4[3 * 4 + 2] = 7;  // m4[3][2]
  std::array<float, 6> mat23{};
  mat23[1 * 3 + 2] = 0.25f;  // mat2x3: 2 columns of 3
  std::array<float, 6> mat32{};
  mat32[2 * 2 + 1] = 0.5f;  // mat3x2: 3 columns of 2
  std::array<float, 12> mat43{};
  mat43[3 * 3 + 2] = 1.0f;  // mat4x3: 4 columns of 3
  k.run({{"f", 1.5f},
         {"f2", std::array<float, 2>{0, 2.5f}},
         {"f3", std::array<float, 3>{0, 0, 3.5f}},
         {"f4", std::array<float, 4>{0, 0, 0, 4.5f}},
         {"i1", std::int32_t{-1}},
         {"i2", std::array<std::int32_t, 2>{0, -2}},
         {"i3", std::array<std::int32_t, 3>{0, 0, -3}},
         {"i4", std::array<std::int32_t, 4>{0, 0, 0, -4}},
         {"u1", std::uint32_t{4000000001u}},
         {"u2", std::array<std::uint32_t, 2>{0, 2}},
         {"u3", std::array<std::uint32_t, 3>{0, 0, 3}},
         {"u4", std::array<std::uint32_t, 4>{0, 0, 0, 4}},
         {"flag", std::int32_t{0}},
         {"m2", mat2},
         {"m3", mat3},
         {"m4", mat4},
         {"m23", mat23},
         {"m32", mat32},
         {"m43", mat43},
         {"weights", std::vector<float>{0, 0, 10}},
         {"F", f},
         {"I", i},
         {"U", u},
         {"M", m}});
  for (std::size_t e = 0; e < 3; ++e) {  // small exact values: every result is exact
    EXPECT_EQ(std::vector<float>(f.begin() + 4 * e, f.begin() + 4 * e + 4),
              (std::vector<float>{11.5f, 12.5f, 13.5f, 14.5f}));
    EXPECT_EQ(std::vector<std::int32_t>(i.begin() + 4 * e, i.begin() + 4 * e + 4),
              (std::vector<std::int32_t>{1, 2, 3, 4}));
    EXPECT_EQ(std::vector<std::uint32_t>(u.begin() + 4 * e, u.begin() + 4 * e + 4),
              (std::vector<std::uint32_t>{4000000001u, 2, 3, 4}));
    EXPECT_EQ(std::vector<float>(m.begin() + 4 * e, m.begin() + 4 * e + 4),
              (std::vector<float>{3, 5, 7, 1.75f}));
  }
}

TEST(TransformFeedback, SamplersOfEveryKindAndWrappedArrays) {
  auto& ctx = context();
  TransformFeedbackKernel k(ctx, R"(
    uniform sampler2D Table;    // 2-D float, 4 x 5
    uniform sampler3D Volume;   // 3-D vec4, 2 x 3 x 4
    uniform isampler2D Ints;    // 1-D int array, wrapped in rows of 7
    uniform usampler2D Uints;   // 1-D uint array, wrapped in rows of 7
    out float T;
    out vec4 V;
    flat out int I;
    flat out uint U;
    void main() {
      int i = gpgpu_index();
      T = texelFetch(Table, ivec2(i % 5, i / 5), 0).r;      // x = column, y = row
      V = texelFetch(Volume, ivec3(i % 4, (i / 4) % 3, i / 12), 0);
      I = gpgpu_fetch(Ints, i).r;
      U = gpgpu_fetch(Uints, i).r;
    })");
  const std::size_t n = 20;  // 4 x 5 table; the volume's 24 texels cover it too
  const auto table = random_floats(20), volume = random_floats(24 * 4);
  const auto ints = gpgpu::test::random_ints(n, -1000000000, 1000000000);
  const auto uints = gpgpu::test::random_uints(n, 1, 4000000000u);
  using gpgpu::TexelType;
  using gpgpu::Texture;
  const auto t_table = Texture::from(ctx, TexelType::Float, {4, 5}, table);
  const auto t_volume = Texture::from(ctx, TexelType::Vec4, {2, 3, 4}, volume);
  const auto t_ints = Texture::from_array(ctx, TexelType::Int, ints, 7);  // 3 rows of 7
  const auto t_uints = Texture::from_array(ctx, TexelType::Uint, uints, 7);
  ASSERT_EQ(t_ints.rows(), 3u);
  std::vector<float> t(n, poison_float()), v(4 * n, poison_float());
  std::vector<std::int32_t> i(n, gpgpu::test::poison_int);
  std::vector<std::uint32_t> u(n, gpgpu::test::poison_uint);
  k.run({{"Table", t_table},
         {"Volume", t_volume},
         {"Ints", t_ints},
         {"Uints", t_uints},
         {"T", t},
         {"V", v},
         {"I", i},
         {"U", u}});
  for (std::size_t e = 0; e < n; ++e) {  // fetched, not computed: exact
    ASSERT_EQ(t[e], table[e]);
    for (int c = 0; c < 4; ++c) ASSERT_EQ(v[4 * e + c], volume[4 * e + c]);
    ASSERT_EQ(i[e], ints[e]);
    ASSERT_EQ(u[e], uints[e]);
  }
  // A float texture for the isampler2D is refused, before anything runs.
  std::vector<std::int32_t> before = i;
  EXPECT_THROW(k.run({{"Table", t_table},
                      {"Volume", t_volume},
                      {"Ints", t_table},
                      {"Uints", t_uints},
                      {"T", t},
                      {"V", v},
                      {"I", i},
                      {"U", u}}),
               gpgpu::TypeMismatchError);
  EXPECT_EQ(i, before);
}

TEST(TransformFeedback, BuffersStayOnTheGpuBetweenKernels) {
  auto& ctx = context();
  TransformFeedbackKernel square(ctx, "in vec2 X; out vec2 Y; void main() { Y = X * X; }");
  TransformFeedbackKernel sum(ctx, "in vec2 Y; out float S; void main() { S = Y.x + Y.y; }");
  const std::size_t n = 100;
  const auto x = random_floats(2 * n);
  const auto x_buffer = gpgpu::Buffer::from(ctx, x);
  gpgpu::Buffer y(ctx, gpgpu::ElementType::Float32, 2 * n);
  std::vector<float> s(n, poison_float());
  square.run({{"X", x_buffer}, {"Y", y}});
  sum.run({{"Y", y}, {"S", s}});
  for (std::size_t e = 0; e < n; ++e) {
    const double exact = double(x[2 * e]) * x[2 * e] + double(x[2 * e + 1]) * x[2 * e + 1];
    ASSERT_NEAR(s[e], exact, gamma(2) * exact) << e;  // two products, one sum: all positive
  }
  // The same Buffer as input and output is refused (OpenGL ES forbids it).
  EXPECT_THROW(square.run({{"X", y}, {"Y", y}}), gpgpu::ArgumentError);
}

// A Buffer::upload queued while a run that writes the same Buffer may still be computing is
// ordered after that run: the next kernel, and a read-back, see the uploaded values. The
// Buffer is idle before each run (read back, waited for), as the nn transform-feedback
// backend's gradient buffers were when, on NVIDIA's driver (H200, 580), the update read the
// backward kernels' values instead of an upload queued after them.
TEST(TransformFeedback, AnUploadAfterARunIsWhatTheNextRunReads) {
  auto& ctx = context();
  // Each vertex iterates `steps` times, so that the run is still going while the host queues
  // the upload (about 1 ms on a GPU; fewer steps on a CPU device, where the draw is done
  // before it returns anyway). Its values are positive, the uploaded ones negative.
  TransformFeedbackKernel slow(ctx, R"(
    in float X;
    out float Y;
    uniform int steps;
    void main() {
      float s = X;
      for (int k = 0; k < steps; ++k) s = s * 0.999 + 1.0;
      Y = s;
    })");
  TransformFeedbackKernel copy(ctx, "in float Y; out float Z; void main() { Z = Y; }");
  const std::size_t n = 4096;
  const auto x = gpgpu::Buffer::from(ctx, random_floats(n, 1, 2));
  gpgpu::Buffer y(ctx, gpgpu::ElementType::Float32, n);
  const int steps = ctx.info().is_software ? 2000 : 400000;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    const auto uploaded = random_floats(n, -2, -1);
    y.upload(std::vector<float>(n, poison_float()));
    (void)y.to_vector<float>();  // idle: every command on it has finished
    slow.run({{"X", x}, {"Y", y}, {"steps", steps}});
    y.upload(uploaded);
    std::vector<float> z(n, poison_float());
    copy.run({{"Y", y}, {"Z", z}});
    const auto back = y.to_vector<float>();
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(z[i], uploaded[i]) << "element " << i << ": the next run read the earlier run's";
      ASSERT_EQ(back[i], uploaded[i]) << "element " << i << ": read back the earlier run's";
    }
  }
}

// Every error is thrown before anything runs and leaves the caller's arrays as they were.
TEST(TransformFeedback, ErrorsNameTheProblemAndChangeNothing) {
  TransformFeedbackKernel k(context(), R"(
    in vec3 A;
    in float B;
    out vec3 C;
    out float D;
    void main() { C = A * B; D = B; })");
  const auto a = random_floats(3 * 4), b = random_floats(4);
  const std::vector<float> poisoned_c(3 * 4, -7.25f), poisoned_d(4, -7.25f);
  std::vector<float> c = poisoned_c, d = poisoned_d;
  auto expect_error = [&](const gpgpu::Args& args, auto error, const std::string& mentions) {
    try {
      k.run(args);
      ADD_FAILURE() << "no error for a call that should fail with '" << mentions << "'";
    } catch (const decltype(error)& e) {
      EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
    }
    EXPECT_EQ(c, poisoned_c);
    EXPECT_EQ(d, poisoned_d);
  };
  // Unknown name.
  expect_error({{"A", a}, {"B", b}, {"C", c}, {"D", d}, {"E", b}}, gpgpu::UnknownArgumentError{""},
               "'E'");
  // Missing output.
  expect_error({{"A", a}, {"B", b}, {"C", c}}, gpgpu::MissingArgumentError{""}, "out float D");
  // Int data for a float input.
  const std::vector<std::int32_t> ints(4, 1);
  expect_error({{"A", a}, {"B", ints}, {"C", c}, {"D", d}}, gpgpu::TypeMismatchError{""}, "'B'");
  // A vec3 array whose length is not a multiple of 3.
  const auto eleven = random_floats(11);
  expect_error({{"A", eleven}, {"B", b}, {"C", c}, {"D", d}}, gpgpu::SizeMismatchError{""},
               "multiple of 3");
  // Outputs that disagree.
  std::vector<float> d5(5, -7.25f);
  expect_error({{"A", a}, {"B", b}, {"C", c}, {"D", d5}}, gpgpu::SizeMismatchError{""}, "D=5");
  // An input that disagrees with the outputs.
  const auto b5 = random_floats(5);
  expect_error({{"A", a}, {"B", b5}, {"C", c}, {"D", d}}, gpgpu::SizeMismatchError{""},
               "input float B has 5 elements");
  // A read-only output.
  expect_error({{"A", a}, {"B", b}, {"C", gpgpu::in(c)}, {"D", d}}, gpgpu::ArgumentError{""},
               "read-only");
  // A scalar for a per-element input.
  expect_error({{"A", a}, {"B", 1.0f}, {"C", c}, {"D", d}}, gpgpu::TypeMismatchError{""},
               "host array or a Buffer");
}

TEST(TransformFeedback, ShadersWithoutCapturableOutputsAreRefused) {
  EXPECT_THROW(
      TransformFeedbackKernel(context(), "in float A; void main() { gl_Position = vec4(A); }"),
      gpgpu::UnsupportedError);
  EXPECT_THROW(
      TransformFeedbackKernel(context(), "out float C[2]; void main() { C[0] = 1.0; C[1] = 2.0; }"),
      gpgpu::UnsupportedError);
  try {
    TransformFeedbackKernel(context(), "out float C;\nvoid main() { C = undefined_thing; }");
    ADD_FAILURE() << "no CompileError";
  } catch (const gpgpu::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find(">>   2 |"), std::string::npos) << e.what();
  }
}

}  // namespace
