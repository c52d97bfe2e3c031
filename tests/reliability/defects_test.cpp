// Regression tests for defects found by reading the code: each test fails on the code
// before its fix.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "gpgpu/gpgpu.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::Args;
namespace test = gpgpu::test;

using gpgpu::test::error_message_of;

constexpr const char* scale_source = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer X { float x[]; };
uniform float factor;
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) x[i] *= factor; })";

// The program cache shares compiled programs between kernels of the same source; each kernel
// must still carry its own label (errors, profiler statistics, gpgpu.js ids).
TEST(Defects, KernelsOfTheSameSourceKeepTheirOwnLabels) {
  auto& ctx = test::context();
  gpgpu::ComputeKernel first(ctx, scale_source, {}, "first kernel");
  gpgpu::ComputeKernel second(ctx, scale_source, {}, "second kernel");
  EXPECT_EQ(first.label(), "first kernel");
  EXPECT_EQ(second.label(), "second kernel");
  std::vector<float> x = test::random_floats(8);
  const std::string error = error_message_of([&] { second.run({{"x", x}, {"factr", 2.0f}}); });
  EXPECT_EQ(error.rfind("second kernel:", 0), 0u) << error;

  gpgpu::TransformFeedbackKernel tf_a(ctx, "in float A; out float B; void main() { B = 2.0 * A; }",
                                      {}, "tf a");
  gpgpu::TransformFeedbackKernel tf_b(ctx, "in float A; out float B; void main() { B = 2.0 * A; }",
                                      {}, "tf b");
  EXPECT_EQ(tf_b.label(), "tf b");
  gpgpu::FragmentKernel f_a(ctx, "out float R; void main() { R = 1.0; }", {}, "frag a");
  gpgpu::FragmentKernel f_b(ctx, "out float R; void main() { R = 1.0; }", {}, "frag b");
  EXPECT_EQ(f_b.label(), "frag b");

  // gpgpu.js: an error of id "Second" is not prefixed "First:".
  gpgpu::js::GPGPU gpgpu(ctx);
  const std::string shader = "in float A; out float C; void main() { C = A + 1.0; }";
  std::vector<float> a = test::random_floats(6), c(6, test::poison_float());
  gpgpu.compute({.id = "First", .vertex_shader = shader, .args = {{"A", a}, {"C", c}}});
  const std::string js_error = error_message_of([&] {
    gpgpu.compute({.id = "Second", .vertex_shader = shader, .args = {{"A", a}, {"D", c}}});
  });
  EXPECT_EQ(js_error.rfind("Second:", 0), 0u) << js_error;

  // The profiler keys its statistics by label: the two kernels stay two rows.
  gpgpu::Profiler profiler(ctx);
  std::vector<float> y = test::random_floats(8);
  first.set_timing(true);
  second.set_timing(true);
  first.run({{"x", y}, {"factor", 1.0f}});
  profiler.record(first, 1.0);
  second.run({{"x", y}, {"factor", 1.0f}});
  profiler.record(second, 1.0);
  EXPECT_EQ(profiler.stats("first kernel").count, 1u);
  EXPECT_EQ(profiler.stats("second kernel").count, 1u);
}

// A uniform block is bound by nobody: the kernel used to run and read zeros. It is refused
// when the kernel is made, and the message says what to do.
TEST(Defects, UniformBlocksAreRefusedWithAReason) {
  auto& ctx = test::context();
  const std::string error = error_message_of([&] {
    gpgpu::ComputeKernel k(ctx, R"(
      layout(local_size_x = 1) in;
      layout(std430, binding = 0) buffer O { float o[]; };
      uniform Params { float scale; };
      void main() { o[0] = scale; })");
  });
  EXPECT_NE(error.find("uniform block Params cannot be bound"), std::string::npos) << error;
  EXPECT_NE(error.find("declare the members as plain uniforms"), std::string::npos) << error;
  EXPECT_THROW(
      gpgpu::FragmentKernel(ctx, "uniform P { vec4 v; }; out vec4 R; void main() { R = v; }"),
      gpgpu::UnsupportedError);
}

// iimage3D and uimage3D had no default precision, so such kernels did not compile although
// textures bind to them. An int 3-D image is written through and read back exactly.
TEST(Defects, IntegerImage3DKernelsCompileAndRun) {
  auto& ctx = test::context();
  const std::vector<std::size_t> shape = {3, 4, 5};  // depth, rows, cols
  const auto values = test::random_ints(3 * 4 * 5, -100000, 100000);
  auto ints = gpgpu::Texture::from(ctx, gpgpu::TexelType::Int, shape, values);
  const auto uvalues = test::random_uints(3 * 4 * 5, 1, 1u << 30);
  auto uints = gpgpu::Texture::from(ctx, gpgpu::TexelType::Uint, shape, uvalues);
  gpgpu::ComputeKernel negate(ctx, R"(
    layout(local_size_x = 5, local_size_y = 4, local_size_z = 3) in;
    layout(r32i, binding = 0) uniform iimage3D signed_values;
    layout(r32ui, binding = 1) uniform uimage3D unsigned_values;
    void main() {
      ivec3 at = ivec3(gl_GlobalInvocationID);
      imageStore(signed_values, at, -imageLoad(signed_values, at));
      imageStore(unsigned_values, at, imageLoad(unsigned_values, at) + 1u);
    })");
  negate.run_groups({{"signed_values", ints}, {"unsigned_values", uints}}, {1, 1, 1});
  const auto negated = ints.to_vector<std::int32_t>();
  const auto incremented = uints.to_vector<std::uint32_t>();
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(negated[i], -values[i]) << i;
    ASSERT_EQ(incremented[i], uvalues[i] + 1u) << i;
  }
}

// A moved-from kernel's label() and variables() dereferenced null (and FragmentKernel::run
// with an empty grid called label() before its guard): now a clear error on every path.
TEST(Defects, MovedFromKernelsThrowInsteadOfCrashing) {
  auto& ctx = test::context();
  gpgpu::ComputeKernel compute(ctx, scale_source);
  gpgpu::ComputeKernel compute_to(std::move(compute));
  EXPECT_NE(error_message_of([&] { (void)compute.label(); }).find("moved from"), std::string::npos);
  EXPECT_NE(error_message_of([&] { (void)compute.variables(); }).find("moved from"),
            std::string::npos);
  EXPECT_NE(error_message_of([&] { (void)compute.local_size(); }).find("moved from"),
            std::string::npos);
  EXPECT_NE(error_message_of([&] { compute.run({}); }).find("moved from"), std::string::npos);
  EXPECT_EQ(compute_to.label(), "compute kernel");

  gpgpu::TransformFeedbackKernel tf(ctx, "in float A; out float B; void main() { B = A; }");
  gpgpu::TransformFeedbackKernel tf_to(std::move(tf));
  EXPECT_NE(error_message_of([&] { (void)tf.label(); }).find("moved from"), std::string::npos);
  EXPECT_NE(error_message_of([&] { (void)tf.variables(); }).find("moved from"), std::string::npos);
  EXPECT_NE(error_message_of([&] { (void)tf.captures_separately(); }).find("moved from"),
            std::string::npos);
  EXPECT_NE(error_message_of([&] { tf.run({}); }).find("moved from"), std::string::npos);

  gpgpu::FragmentKernel fragment(ctx, "out float R; void main() { R = 1.0; }");
  gpgpu::FragmentKernel fragment_to(std::move(fragment));
  EXPECT_NE(error_message_of([&] { (void)fragment.label(); }).find("moved from"),
            std::string::npos);
  EXPECT_NE(error_message_of([&] { (void)fragment.variables(); }).find("moved from"),
            std::string::npos);
  EXPECT_NE(error_message_of([&] { fragment.run({}, 0, 0); }).find("moved from"),
            std::string::npos);
}

// ComputeKernel promises to check everything before touching the GPU; textures were checked
// only while binding, after the uploads. Every texture mistake is now found first: the
// caller's arrays and Buffers are untouched, and the message names the uniform.
TEST(Defects, ComputeKernelChecksTexturesBeforeAnything) {
  auto& ctx = test::context();
  gpgpu::ComputeKernel k(ctx, R"(
    layout(local_size_x = 8) in;
    layout(std430, binding = 0) buffer X { float x[]; };
    layout(std430, binding = 1) buffer B { float b[]; };
    uniform highp sampler2D table;
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) { x[i] += texelFetch(table, ivec2(0, 0), 0).r; b[i] += 1.0; }
    })");
  const auto x0 = test::random_floats(16);
  auto b = gpgpu::Buffer::from(ctx, x0);
  auto three_d = gpgpu::Texture(ctx, gpgpu::TexelType::Float, {2, 2, 2});
  auto ints = gpgpu::Texture(ctx, gpgpu::TexelType::Int, {2, 2});
  gpgpu::Context other;
  auto foreign = gpgpu::Texture(other, gpgpu::TexelType::Float, {2, 2});
  ctx.make_current();
  gpgpu::Texture released(ctx, gpgpu::TexelType::Float, {2, 2});
  released.release();
  struct Case {
    const gpgpu::Texture* texture;
    std::string expected;
  };
  for (const auto& [texture, expected] : std::vector<Case>{{&three_d, "needs a 2-D texture"},
                                                           {&ints, "needs a 2-D texture of float"},
                                                           {&foreign, "belongs to another Context"},
                                                           {&released, "empty or released"}}) {
    std::vector<float> x = x0;
    const std::string error = error_message_of([&] {
      k.run({{"x", x}, {"b", b}, {"table", *texture}});
    });
    EXPECT_NE(error.find("uniform sampler2D table"), std::string::npos) << error;
    EXPECT_NE(error.find(expected), std::string::npos) << error;
    EXPECT_EQ(x, x0);
    EXPECT_EQ(b.to_vector<float>(), x0);
  }
}

// GLError with code 0 was thrown for things that are not GL errors; they have their own type.
TEST(Defects, DriverFailuresAreNotGLErrors) {
  static_assert(std::is_base_of_v<gpgpu::Error, gpgpu::DriverError>);
  static_assert(!std::is_base_of_v<gpgpu::GLError, gpgpu::DriverError>);
  static_assert(std::is_base_of_v<gpgpu::GLError, gpgpu::ContextLostError>);
  static_assert(!std::is_base_of_v<gpgpu::GLError, gpgpu::TimeoutError>);
  SUCCEED();
}

// An Arg held a raw pointer to its Texture or Buffer: kept beyond the object's life it read
// freed memory. Now a destroyed object is reported, a moved one is followed.
TEST(Defects, ArgsOutlivingTheirTextureOrBufferAreSafe) {
  auto& ctx = test::context();
  gpgpu::ComputeKernel add_table(ctx, R"(
    layout(local_size_x = 8) in;
    layout(std430, binding = 0) buffer X { float x[]; };
    uniform highp sampler2D table;
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) x[i] += texelFetch(table, ivec2(int(i) % 2, 0), 0).r;
    })");
  const std::vector<float> table_values = {0.25f, 0.5f};
  std::vector<float> x = test::random_floats(8);
  const auto x0 = x;
  Args params;  // kept across statements, as gpgpu.js code keeps its params objects
  {
    auto table = gpgpu::Texture::from(ctx, gpgpu::TexelType::Float, {1, 2}, table_values);
    params = {{"x", x}, {"table", table}};
  }
  const std::string error = error_message_of([&] { add_table.run(params); });
  EXPECT_NE(error.find("the Texture for uniform sampler2D table was destroyed"), std::string::npos)
      << error;
  EXPECT_EQ(x, x0);

  // A moved texture is followed: the Arg reaches the texture where it lives now.
  auto table = gpgpu::Texture::from(ctx, gpgpu::TexelType::Float, {1, 2}, table_values);
  params = {{"x", x}, {"table", table}};
  auto moved_table = std::move(table);
  add_table.run(params);
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i], x0[i] + table_values[i % 2]) << i;  // one rounding, the same on both sides
  }
  // Move-assigning over a texture drops the old one: Args made from it see it destroyed.
  auto other = gpgpu::Texture::from(ctx, gpgpu::TexelType::Float, {1, 2}, table_values);
  params = {{"x", x}, {"table", moved_table}};
  moved_table = std::move(other);
  EXPECT_NE(error_message_of([&] { add_table.run(params); }).find("was destroyed"),
            std::string::npos);

  // Buffers likewise, for compute and transform-feedback kernels.
  gpgpu::ComputeKernel scale(ctx, scale_source);
  Args buffer_params;
  {
    auto buffer = gpgpu::Buffer::from(ctx, test::random_floats(8));
    buffer_params = {{"x", buffer}, {"factor", 2.0f}};
  }
  EXPECT_NE(
      error_message_of([&] { scale.run(buffer_params); }).find("the Buffer for 'x' was destroyed"),
      std::string::npos);
  gpgpu::TransformFeedbackKernel copy(ctx, "in float A; out float B; void main() { B = A; }");
  std::vector<float> out(8, test::poison_float());
  Args tf_params;
  {
    auto input = gpgpu::Buffer::from(ctx, test::random_floats(8));
    tf_params = {{"A", input}, {"B", out}};
  }
  EXPECT_NE(error_message_of([&] { copy.run(tf_params); }).find("was destroyed"),
            std::string::npos);
}

// A float given for an int uniform said "declared int (int components)".
TEST(Defects, TypeMismatchNamesTheComponentCount) {
  auto& ctx = test::context();
  gpgpu::ComputeKernel k(ctx, R"(
    layout(local_size_x = 1) in;
    layout(std430, binding = 0) buffer O { int o[]; };
    uniform int n;
    uniform ivec3 v;
    void main() { o[0] = n + v.x; })");
  std::vector<std::int32_t> o(1, test::poison_int);
  const std::string scalar = error_message_of([&] {
    k.run({{"o", o}, {"n", 1.5f}, {"v", std::array<std::int32_t, 3>{}}});
  });
  EXPECT_NE(
      scalar.find("uniform 'n' is declared int (1 int component) but was given a float32 value"),
      std::string::npos)
      << scalar;
  const std::string vector = error_message_of([&] {
    k.run({{"o", o}, {"n", std::int32_t{1}}, {"v", std::array<float, 3>{}}});
  });
  EXPECT_NE(vector.find("is declared ivec3 (3 int components)"), std::string::npos) << vector;
}

}  // namespace
