// The OpenGL ES 3.0 paths the browser build takes, checked natively where they can run: the
// output declarations read from GLSL source (with the preprocessor's conditionals), the ES
// 3.0 introspection against the ES 3.1 one on the same programs, the GPU copies the browser
// uses instead of compute dispatches (Texture::copy_from, Buffer::copy_from), and the gpgpu.js
// facade's kernel(). The browser suite (tests/browser) runs the rest in Chromium.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "gl/context_state.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/fragment_kernel.hpp"
#include "gpgpu/gpgpu_js.hpp"
#include "gpgpu/texture.hpp"
#include "shader/glsl_outputs.hpp"
#include "shader/glsl_preprocessor.hpp"
#include "shader/glsl_source.hpp"
#include "shader/program.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::test::context;
using gpgpu::test::poison_float;

std::string names(const std::vector<gpgpu::detail::DeclaredOutput>& outputs) {
  std::string s;
  for (const auto& o : outputs)
    s += o.type + " " + o.name + "[" + std::to_string(o.array_size) + "];";
  return s;
}

TEST(GlslOutputs, DeclarationsWithQualifiersLayoutsArraysAndComments) {
  const auto outputs = gpgpu::detail::declared_outputs(R"(
    in float A;               // an input: not an output
    out float C;  /* out vec4 commented; */
    flat out highp int i, j;
    layout(location = 1) out vec4 D[2];
    uniform Block { float out_of_block; } block;
    void f(out float x) { x = 1.0; }   // a parameter, not a global
    void main() { out_of_block_call(); }
  )");
  EXPECT_EQ(names(outputs), "float C[1];int i[1];int j[1];vec4 D[2];");
}

TEST(GlslOutputs, OnlyTheLinesThePreprocessorKeeps) {
  const auto outputs = gpgpu::detail::declared_outputs(R"(
#define MODE 2
#define WITH_EXTRA
#if MODE == 1
out float one;
#elif MODE == 2 && defined(WITH_EXTRA)
out float two;
#  ifndef WITH_EXTRA
out float never;
#  else
out float extra;
#  endif
#else
out float other;
#endif
#undef WITH_EXTRA
#ifdef WITH_EXTRA
out float gone;
#endif
#if (MODE * 3 - 1) % 5 == 0 || !defined(NOT_THERE)
out float arithmetic;
#endif
  )");
  EXPECT_EQ(names(outputs), "float two[1];float extra[1];float arithmetic[1];");
}

TEST(GlslOutputs, UnbalancedConditionalsAreCompileErrors) {
  EXPECT_THROW(gpgpu::detail::active_lines("#if 1\nout float C;\n"), gpgpu::CompileError);
  EXPECT_THROW(gpgpu::detail::active_lines("#endif\n"), gpgpu::CompileError);
  EXPECT_THROW(gpgpu::detail::active_lines("#if 1 +\n#endif\n"), gpgpu::CompileError);
}

// The ES 3.0 introspection (WebGL2's) finds what the ES 3.1 queries find.
TEST(Es30Introspection, AgreesWithProgramInterfaceQueries) {
  auto& state = *context().state();
  state.ensure_current();
  const char* fragment = R"(
    uniform sampler2D T; uniform int k; uniform vec3 v[2]; uniform mat3 m;
    layout(location = 0) out vec4 color;
    layout(location = 2) out float extra;
    void main() {
      color = texelFetch(T, gpgpu_coord(), 0) + vec4(float(k)) + vec4(v[1], 1.0) + vec4(m[0], 0.0);
      extra = v[0].x;
    })";
  const char* vertex = "in vec3 p; in float q; void main() { gl_Position = vec4(p, q); }";
  const gpgpu::detail::ShaderStage stages[] = {
      {GL_VERTEX_SHADER,
       gpgpu::detail::complete_source(vertex, GL_VERTEX_SHADER, state.info, {}, ""), vertex},
      {GL_FRAGMENT_SHADER,
       gpgpu::detail::complete_source(fragment, GL_FRAGMENT_SHADER, state.info, {},
                                      "ivec2 gpgpu_coord() { return ivec2(gl_FragCoord.xy); }\n"),
       fragment}};
  const auto linked = gpgpu::detail::build_program(state, {stages[0], stages[1]}, {}, "es30 probe");
  const gpgpu::detail::Program& program = *linked;
  const auto es31 = gpgpu::detail::introspect(program.id(), false);
  const auto es30 = gpgpu::detail::introspect_es30(program.id(), {stages[0], stages[1]});
  auto sorted = [](auto list) {
    std::sort(list.begin(), list.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    return list;
  };
  const auto u31 = sorted(es31.uniforms), u30 = sorted(es30.uniforms);
  ASSERT_EQ(u31.size(), u30.size());
  for (std::size_t i = 0; i < u31.size(); ++i) {
    EXPECT_EQ(u31[i].name, u30[i].name);
    EXPECT_EQ(u31[i].type.gl, u30[i].type.gl) << u31[i].name;
    EXPECT_EQ(u31[i].array_size, u30[i].array_size) << u31[i].name;
    EXPECT_EQ(u31[i].is_array, u30[i].is_array) << u31[i].name;
    EXPECT_EQ(u31[i].location, u30[i].location) << u31[i].name;
  }
  for (const auto& [a, b] : {std::pair{sorted(es31.inputs), sorted(es30.inputs)},
                             std::pair{sorted(es31.outputs), sorted(es30.outputs)}}) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].name, b[i].name);
      EXPECT_EQ(a[i].type.gl, b[i].type.gl) << a[i].name;
      EXPECT_EQ(a[i].location, b[i].location) << a[i].name;
    }
  }
}

TEST(GpuCopies, TextureCopyFromBufferFillsTexelsFromAnyOffset) {
  const std::size_t rows = 7, cols = 13;
  for (const std::size_t first :
       {std::size_t{0}, std::size_t{5}, std::size_t{13}, std::size_t{27}}) {
    const std::size_t count = rows * cols - first - (first % 3);
    auto values = gpgpu::test::random_floats(count);
    std::vector<float> before(rows * cols, poison_float());
    auto texture = gpgpu::Texture::from(context(), gpgpu::TexelType::Float, {rows, cols}, before);
    const auto buffer = gpgpu::Buffer::from(context(), std::span<const float>(values));
    texture.copy_from(buffer, first);
    const auto after = texture.to_vector<float>();
    for (std::size_t t = 0; t < rows * cols; ++t) {
      const bool copied = t >= first && t < first + count;
      const float expected = copied ? values[t - first] : poison_float();
      EXPECT_TRUE(std::memcmp(&after[t], &expected, 4) == 0) << "texel " << t << " first " << first;
    }
  }
}

TEST(GpuCopies, CopyFromRefusesMismatches) {
  gpgpu::Texture texture(context(), gpgpu::TexelType::Float, {2, 3});
  const gpgpu::Buffer ints(context(), gpgpu::ElementType::Int32, 6);
  const gpgpu::Buffer floats(context(), gpgpu::ElementType::Float32, 6);
  EXPECT_THROW(texture.copy_from(ints), gpgpu::TypeMismatchError);
  EXPECT_THROW(texture.copy_from(floats, 1), gpgpu::SizeMismatchError);
  gpgpu::Buffer target(context(), gpgpu::ElementType::Float32, 4);
  EXPECT_THROW(target.copy_from(ints, 0, 0, 2), gpgpu::TypeMismatchError);
  EXPECT_THROW(target.copy_from(floats, 3, 0, 4), gpgpu::SizeMismatchError);
  EXPECT_THROW(target.copy_from(target, 0, 1, 2), gpgpu::ArgumentError);  // overlapping
}

TEST(GpuCopies, BufferCopyFromMovesARange) {
  const auto values = gpgpu::test::random_floats(100);
  const auto source = gpgpu::Buffer::from(context(), std::span<const float>(values));
  std::vector<float> start(50, poison_float());
  auto target = gpgpu::Buffer::from(context(), std::span<const float>(start));
  target.copy_from(source, 30, 10, 25);
  const auto after = target.to_vector<float>();
  for (std::size_t i = 0; i < 50; ++i) {
    const float expected = i >= 10 && i < 35 ? values[30 + i - 10] : poison_float();
    EXPECT_TRUE(std::memcmp(&after[i], &expected, 4) == 0) << i;
  }
}

TEST(Platform, NativeContextsHaveComputeShadersAndTheirTraits) {
  const auto& state = *context().state();
  EXPECT_TRUE(context().info().has_compute_shaders());
  EXPECT_TRUE(state.platform.gles31);
  EXPECT_EQ(state.platform.name, "EGL");
  EXPECT_TRUE(state.is_current());
}

TEST(Facade, KernelCompilesOnceAndRefusesAnotherSourceForItsId) {
  gpgpu::js::GPGPU gpgpu(context());
  const std::string source =
      "in float A; uniform int k; flat out int C; void main() { C = int(A) * k; }";
  const auto& kernel = gpgpu.kernel("K", source);
  const auto vars = kernel.variables();
  ASSERT_EQ(vars.size(), 3u);
  EXPECT_EQ(&gpgpu.kernel("K", source), &kernel);
  EXPECT_THROW(gpgpu.kernel("K", source + " "), gpgpu::ArgumentError);
  EXPECT_TRUE(gpgpu.clear("K"));
}

}  // namespace
