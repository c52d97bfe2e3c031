// gpgpu::texels(buffer): a Buffer read through a samplerBuffer in a compute kernel.
#include <gtest/gtest.h>

#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "primitives_test_support.hpp"

namespace gpgpu::test {
namespace {

// Texture buffers are OpenGL ES 3.2's (an extension on 3.1): a device without them must
// refuse a kernel that declares one, naming what it lacks.
bool refused_without_texture_buffers(Context& ctx) {
  if (ctx.info().has_texture_buffers()) return false;
  const std::string message = gpgpu::test::error_message_of([&] {
    ComputeKernel k(ctx,
                    "layout(local_size_x = 1) in; uniform highp samplerBuffer t;\n"
                    "layout(std430, binding = 0) buffer O { float o[]; };\n"
                    "void main() { o[0] = texelFetch(t, 0).r; }");
  });
  EXPECT_NE(message.find("GL_EXT_texture_buffer"), std::string::npos) << message;
  return true;
}

TEST(BufferTexels, ScalarAndVec4TexelsOfEachType) {
  Context& ctx = context();
  if (refused_without_texture_buffers(ctx)) return;
  const std::size_t n = 1003;
  const auto f = random_floats(n);
  const auto u = random_uints(n, 1, 0xFFFFFFF0u);
  const auto i = random_ints(n, -100000, 100000);
  const Buffer fb = Buffer::from(ctx, f), ub = Buffer::from(ctx, u), ib = Buffer::from(ctx, i);
  ComputeKernel k(ctx, R"(
    layout(local_size_x = 64) in;
    uniform highp samplerBuffer fs;
    uniform highp samplerBuffer f4;
    uniform highp usamplerBuffer us;
    uniform highp isamplerBuffer is;
    layout(std430, binding = 0) writeonly buffer F { float fo[]; };
    layout(std430, binding = 1) writeonly buffer F4 { float f4o[]; };
    layout(std430, binding = 2) writeonly buffer U { uint uo[]; };
    layout(std430, binding = 3) writeonly buffer I { int io[]; };
    void main() {
      uint j = gpgpu_index();
      if (j >= gpgpu_count) return;
      fo[j] = texelFetch(fs, int(j)).x;
      uo[j] = texelFetch(us, int(j)).x;
      io[j] = texelFetch(is, int(j)).x;
      if (j < gpgpu_count / 4u) {
        vec4 v = texelFetch(f4, int(j));
        for (int c = 0; c < 4; ++c) f4o[4u * j + uint(c)] = v[c];
      }
    })");
  std::vector<float> fo(n, poison_float()), f4o(n, poison_float());
  std::vector<std::uint32_t> uo(n, poison_uint);
  std::vector<std::int32_t> io(n, poison_int);
  k.run({{"fs", texels(fb)},
         {"f4", texels(fb, 4)},
         {"us", texels(ub)},
         {"is", texels(ib)},
         {"fo", out(fo)},
         {"f4o", inout(f4o)},
         {"uo", out(uo)},
         {"io", out(io)}},
        n);
  for (std::size_t j = 0; j < n; ++j) {
    ASSERT_TRUE(same_bits(fo[j], f[j])) << j;
    ASSERT_EQ(uo[j], u[j]) << j;
    ASSERT_EQ(io[j], i[j]) << j;
    if (j < n / 4 * 4) {
      ASSERT_TRUE(same_bits(f4o[j], f[j])) << j;
    } else {
      ASSERT_TRUE(std::isnan(f4o[j])) << j;  // the partial texel is never written
    }
  }
}

TEST(BufferTexels, Errors) {
  Context& ctx = context();
  if (refused_without_texture_buffers(ctx)) return;
  const Buffer fb = Buffer::from(ctx, random_floats(16));
  const Buffer ub = Buffer::from(ctx, random_uints(16, 1, 9));
  ComputeKernel k(ctx, R"(
    layout(local_size_x = 1) in;
    uniform highp samplerBuffer fs;
    layout(std430, binding = 0) writeonly buffer F { float fo[]; };
    void main() { fo[0] = texelFetch(fs, 0).x; })");
  std::vector<float> fo(1, poison_float());
  EXPECT_THROW(k.run({{"fs", texels(ub)}, {"fo", out(fo)}}, 1), TypeMismatchError);
  EXPECT_THROW(k.run({{"fs", texels(fb, 3)}, {"fo", out(fo)}}, 1), ArgumentError);
  EXPECT_THROW(k.run({{"fs", fb}, {"fo", out(fo)}}, 1), TypeMismatchError);
  Buffer empty;
  EXPECT_THROW(k.run({{"fs", texels(empty)}, {"fo", out(fo)}}, 1), ArgumentError);
  EXPECT_TRUE(std::isnan(fo[0]));
}

}  // namespace
}  // namespace gpgpu::test
