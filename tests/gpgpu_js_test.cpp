// The gpgpu.js facade: programs cached by id, clear, make_texture_info for every texel type
// and 3-D shapes, and its errors.
#include <gtest/gtest.h>

#include "gpgpu/error.hpp"
#include "gpgpu/gpgpu_js.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::test::context;

constexpr const char* scale_shader = R"(
  in float A;
  uniform float s;
  out float C;
  void main() { C = A * s; })";

TEST(GpgpuJs, CachesKernelsByIdUntilCleared) {
  gpgpu::js::GPGPU gpgpu(context());
  const auto a = gpgpu::test::random_floats(10);
  std::vector<float> c(10, gpgpu::test::poison_float());
  gpgpu.compute(
      {.id = "Scale", .vertex_shader = scale_shader, .args = {{"A", a}, {"s", 2.0f}, {"C", c}}});
  gpgpu.compute(
      {.id = "Scale", .vertex_shader = scale_shader, .args = {{"A", a}, {"s", 4.0f}, {"C", c}}});
  EXPECT_EQ(gpgpu.kernel_count(), 1u);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(c[i], 4 * a[i]);  // scaling by 4 is exact
  // Another shader under the same id is refused until the id is cleared.
  EXPECT_THROW(gpgpu.compute({.id = "Scale",
                              .vertex_shader = "in float A; out float C; void main() { C = -A; }",
                              .args = {{"A", a}, {"C", c}}}),
               gpgpu::ArgumentError);
  EXPECT_TRUE(gpgpu.clear("Scale"));
  EXPECT_FALSE(gpgpu.clear("Scale"));
  EXPECT_EQ(gpgpu.kernel_count(), 0u);
  gpgpu.compute({.id = "Scale",
                 .vertex_shader = "in float A; out float C; void main() { C = -A; }",
                 .args = {{"A", a}, {"C", c}}});
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(c[i], -a[i]);
  EXPECT_THROW(gpgpu.compute({.id = "", .vertex_shader = scale_shader, .args = {}}),
               gpgpu::ArgumentError);
}

TEST(GpgpuJs, TextureInfoForEveryTypeAndShape) {
  gpgpu::js::GPGPU gpgpu(context());
  // One vertex per element reads element (layer, row, col) = (i / 6, (i / 3) % 2, i % 3).
  const char* shader = R"(
    uniform sampler3D F;   // vec2 texels, 2 x 2 x 3
    uniform isampler2D I;  // int, 4 x 3
    uniform usampler2D U;  // uint, 4 x 3
    out vec2 G;
    flat out int J;
    flat out uint V;
    void main() {
      int i = gl_VertexID;
      G = texelFetch(F, ivec3(i % 3, (i / 3) % 2, i / 6), 0).rg;
      J = texelFetch(I, ivec2(i % 3, i / 3), 0).r;
      V = texelFetch(U, ivec2(i % 3, i / 3), 0).r;
    })";
  const auto f = gpgpu::test::random_floats(24);
  const auto ints = gpgpu::test::random_ints(12, -2000000000, 2000000000);
  const auto uints = gpgpu::test::random_uints(12, 1, 4000000000u);
  std::vector<float> g(24, gpgpu::test::poison_float());
  std::vector<std::int32_t> j(12, gpgpu::test::poison_int);
  std::vector<std::uint32_t> v(12, gpgpu::test::poison_uint);
  gpgpu.compute({.id = "Fetch",
                 .vertex_shader = shader,
                 .args = {{"F", gpgpu.make_texture_info("vec2", {2, 2, 3}, f)},
                          {"I", gpgpu.make_texture_info("int", {4, 3}, ints)},
                          {"U", gpgpu.make_texture_info("uint", {4, 3}, uints)},
                          {"G", g},
                          {"J", j},
                          {"V", v}}});
  EXPECT_EQ(g, f);  // fetched, not computed: exact
  EXPECT_EQ(j, ints);
  EXPECT_EQ(v, uints);

  EXPECT_THROW(gpgpu.make_texture_info("double", {2, 2}, f), gpgpu::ArgumentError);
  EXPECT_THROW(gpgpu.make_texture_info("int", {4, 3}, uints), gpgpu::TypeMismatchError);
  EXPECT_THROW(gpgpu.make_texture_info("vec3", {2, 3}, f), gpgpu::SizeMismatchError);  // 24 != 18
  const auto max = static_cast<std::size_t>(context().info().max_texture_size);
  EXPECT_THROW(gpgpu.make_texture_info("float", {1, max + 1}, f), gpgpu::LimitError);
}

}  // namespace
