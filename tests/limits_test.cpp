// Device-limit profiles (gpgpu/limits.hpp): the clamp reaches DeviceInfo, and a kernel over a
// clamped limit is refused at link time with the limit, its figure and the device's named.
// Each refused kernel is also run without a profile, on the same device: what refuses it
// is the profile's clamp, not the driver (a clamp that is skipped fails these tests).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "gl/gl.hpp"
#include "gl/groups_in_flight_probe.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/fragment_kernel.hpp"
#include "gpgpu/limits.hpp"
#include "gpgpu/texture.hpp"
#include "gpgpu/transform_feedback_kernel.hpp"
#include "shader/glsl_source.hpp"
#include "shader/shared_memory.hpp"
#include "test_support.hpp"

namespace {

// The driver's own limits, whatever GPGPU_LIMITS says (the suite also runs under a profile).
gpgpu::Context& context() {
  static gpgpu::Context ctx({.limits = "device"});
  return ctx;
}

gpgpu::Context& minimum() {
  static gpgpu::Context ctx({.limits = "es31-minimum"});
  return ctx;
}

// The DeviceLimitError a kernel's first run (its link) throws on `ctx`.
gpgpu::DeviceLimitError link_error(gpgpu::Context& ctx, const std::string& source) {
  try {
    gpgpu::ComputeKernel kernel(ctx, source, {}, "over-limit kernel");
    std::vector<float> data(256, 1.0f);
    kernel.run({{"a", data}}, data.size());
  } catch (const gpgpu::DeviceLimitError& e) {
    return e;
  }
  ADD_FAILURE() << "no DeviceLimitError for:\n" << source;
  return gpgpu::DeviceLimitError("", "", 0, 0);
}

// Links and runs on the shared context (the driver's own limits): the kernel is legal there.
void runs_without_profile(const std::string& source) {
  gpgpu::ComputeKernel kernel(context(), source, {}, "kernel");
  std::vector<float> data(256, 1.0f);
  EXPECT_NO_THROW(kernel.run({{"a", data}}));
}

// The probe behind DeviceInfo::is_software on Mesa's software EGL device: a CPU driver has
// at most its threads' worth of work groups in flight, a GPU hundreds or thousands. Run
// directly, so that it is also checked on GPUs, where a Context does not run it.
TEST(DeviceClass, GroupsInFlightTellACpuDriverFromAGpu) {
  auto& ctx = gpgpu::test::context();
  const int in_flight =
      gpgpu::detail::measure_groups_in_flight(ctx.info(), gpgpu::detail::PlatformTraits{});
  ASSERT_GT(in_flight, 0) << "the probe could not run on " << ctx.info().renderer;
  if (ctx.info().is_software) {
    EXPECT_LE(in_flight, gpgpu::detail::gpu_groups_in_flight) << ctx.info().renderer;
  } else {
    EXPECT_GT(in_flight, gpgpu::detail::gpu_groups_in_flight) << ctx.info().renderer;
  }
}

TEST(Limits, AProfilesFiguresAppearInDeviceInfo) {
  const auto& device = context().info();
  const auto& info = minimum().info();
  const auto& profile = gpgpu::limit_profile("es31-minimum");
  EXPECT_EQ(info.limit_profile, "es31-minimum");
  EXPECT_TRUE(device.limit_profile.empty());
  for (const auto& limit : profile.limits) {
    SCOPED_TRACE(limit.gl_name);
    EXPECT_EQ(gpgpu::limit_value(info, limit.gl_name),
              std::min(limit.value, gpgpu::limit_value(device, limit.gl_name)));
  }
  EXPECT_TRUE(info.extensions.empty()) << "es31-minimum has no optional extensions";
  EXPECT_FALSE(info.has_color_buffer_float());
  EXPECT_FALSE(info.has_buffer_storage());
  EXPECT_EQ(info.subgroup_size, 0);
  EXPECT_EQ(info.gl_minor, 1);
}

TEST(Limits, EveryProfileNamesOnlyKnownLimitsAndCitesItsSource) {
  for (const auto& profile : gpgpu::limit_profiles()) {
    SCOPED_TRACE(profile.name);
    EXPECT_FALSE(profile.source.empty());
    EXPECT_FALSE(profile.device.empty());
    for (const auto& limit : profile.limits) {
      EXPECT_NO_THROW(gpgpu::limit_value(context().info(), limit.gl_name));
      EXPECT_GE(limit.value, 0);
    }
    const auto clamped = gpgpu::clamp_to_profile(context().info(), profile);
    EXPECT_EQ(clamped.limit_profile, profile.name);
  }
}

TEST(Limits, AnUnknownProfileIsAContextErrorListingTheProfiles) {
  const std::string message =
      gpgpu::test::error_message_of([] { gpgpu::Context ctx({.limits = "no-such-gpu"}); });
  EXPECT_NE(message.find("no-such-gpu"), std::string::npos) << message;
  EXPECT_NE(message.find("es31-minimum"), std::string::npos) << message;
  EXPECT_THROW(gpgpu::Context({.limits = "no-such-gpu"}), gpgpu::ContextError);
}

TEST(Limits, TheEnvironmentVariableChoosesTheProfile) {
  const char* before = std::getenv("GPGPU_LIMITS");  // the suite may run under a profile
  const std::string saved = before != nullptr ? before : "";
  ::setenv("GPGPU_LIMITS", "es31-minimum", 1);
  gpgpu::Context ctx;
  if (before != nullptr) {
    ::setenv("GPGPU_LIMITS", saved.c_str(), 1);
  } else {
    ::unsetenv("GPGPU_LIMITS");
  }
  EXPECT_EQ(ctx.info().limit_profile, "es31-minimum");
  gpgpu::Context device_limits({.limits = "device"});
  EXPECT_TRUE(device_limits.info().limit_profile.empty());
}

TEST(Limits, AWorkGroupOverTheProfileIsRefusedNamingTheLimit) {
  const std::string source = R"(
    layout(local_size_x = 256) in;
    layout(std430, binding = 0) buffer A { float a[]; };
    void main() { uint i = gpgpu_index(); if (i < gpgpu_count) a[i] += 1.0; })";
  runs_without_profile(source);
  const auto e = link_error(minimum(), source);
  EXPECT_EQ(e.limit(), "GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS");
  EXPECT_EQ(e.needed(), 256);
  EXPECT_EQ(e.allowed(), 128);
  const std::string message = e.what();
  EXPECT_NE(message.find("over-limit kernel needs 256 invocations"), std::string::npos) << message;
  EXPECT_NE(message.find("allows 128"), std::string::npos) << message;
  EXPECT_NE(message.find("es31-minimum"), std::string::npos) << message;
}

TEST(Limits, StorageBuffersOverTheProfileAreRefusedNamingTheLimit) {
  const std::string source = R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) buffer A { float a[]; };
    layout(std430, binding = 1) readonly buffer B { float b[]; };
    layout(std430, binding = 2) readonly buffer C { float c[]; };
    layout(std430, binding = 3) readonly buffer D { float d[]; };
    layout(std430, binding = 4) readonly buffer E { float e[]; };
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) a[i] = b[i % 2u] + c[i % 3u] + d[i % 4u] + e[i % 5u];
    })";
  gpgpu::ComputeKernel kernel(context(), source);
  std::vector<float> a(256), b(2, 1.0f), c(3, 2.0f), d(4, 3.0f), e(5, 4.0f);
  kernel.run({{"a", a},
              {"b", std::as_const(b)},
              {"c", std::as_const(c)},
              {"d", std::as_const(d)},
              {"e", std::as_const(e)}},
             a.size());
  EXPECT_EQ(a[0], 10.0f);
  const auto error = link_error(minimum(), source);
  EXPECT_EQ(error.limit(), "GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS");
  EXPECT_EQ(error.needed(), 5);
  EXPECT_EQ(error.allowed(), 4);
  EXPECT_NE(std::string(error.what()).find("5 storage buffers in a compute shader"),
            std::string::npos)
      << error.what();
}

TEST(Limits, SharedMemoryOverTheProfileIsRefusedNamingTheLimit) {
  // 16 KB + 4 bytes: 4097 floats, over es31-minimum's 16384 bytes.
  const std::string source = R"(
    #define N 4096
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) buffer A { float a[]; };
    shared float tile[N + 1];
    void main() {
      uint i = gpgpu_index();
      tile[gl_LocalInvocationIndex] = 1.0;
      barrier();
      if (i < gpgpu_count) a[i] = tile[(gl_LocalInvocationIndex + 1u) % 64u];
    })";
  runs_without_profile(source);
  const auto e = link_error(minimum(), source);
  EXPECT_EQ(e.limit(), "GL_MAX_COMPUTE_SHARED_MEMORY_SIZE");
  EXPECT_EQ(e.needed(), 4 * 4097);
  EXPECT_EQ(e.allowed(), 16384);
}

// "o3": the name of output 3 (appended, not "o" + ...: GCC 12 warns falsely of the latter).
std::string output_name(int o) {
  std::string name = "o";
  name += std::to_string(o);
  return name;
}

// `count` outputs of `type` (each component the vertex index plus the output's number).
std::string outputs_shader(int count, const std::string& type) {
  std::string vertex;
  for (int o = 0; o < count; ++o) vertex += "out " + type + " " + output_name(o) + ";\n";
  vertex += "void main() {\n";
  for (int o = 0; o < count; ++o) {
    vertex += "  " + output_name(o) + " = " + type + "(float(gl_VertexID + " + std::to_string(o) +
              "));\n";
  }
  return vertex + "}\n";
}

TEST(Limits, TransformFeedbackPastTheSeparateLimitsIsCapturedInterleaved) {
  // Five outputs: more than es31-minimum's 4 separate attributes, so the capture goes
  // interleaved (5 of its 64 components) and is split back into the five arrays.
  const int outputs = 5, n = 37;
  gpgpu::TransformFeedbackKernel kernel(minimum(), outputs_shader(outputs, "float"));
  std::vector<std::vector<float>> got(outputs, std::vector<float>(n, gpgpu::test::poison_float()));
  gpgpu::Args args;
  for (int o = 0; o < outputs; ++o) args.push_back({output_name(o), got[o]});
  kernel.run(args);
  for (int o = 0; o < outputs; ++o) {
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[o][i], static_cast<float>(i + o)) << o << " " << i;
  }
}

TEST(Limits, TransformFeedbackPastTheInterleavedLimitIsRefusedNamingTheLimit) {
  // 17 vec4 outputs: 68 components, past es31-minimum's 64.
  std::vector<std::vector<float>> got(17, std::vector<float>(4 * 8));
  gpgpu::Args args;
  for (int o = 0; o < 17; ++o) args.push_back({output_name(o), got[o]});
  try {
    gpgpu::TransformFeedbackKernel kernel(minimum(), outputs_shader(17, "vec4"));
    kernel.run(args);
    ADD_FAILURE() << "17 vec4 outputs were captured under es31-minimum";
  } catch (const gpgpu::DeviceLimitError& e) {
    EXPECT_EQ(e.limit(), "GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS");
    EXPECT_EQ(e.needed(), 68);
    EXPECT_EQ(e.allowed(), 64);
  }
}

TEST(Limits, AKernelWithinTheProfileRunsCorrectlyUnderIt) {
  gpgpu::ComputeKernel kernel(minimum(), R"(
    layout(local_size_x = 128) in;
    layout(std430, binding = 0) buffer A { float a[]; };
    void main() { uint i = gpgpu_index(); if (i < gpgpu_count) a[i] = a[i] * a[i]; })");
  auto data = gpgpu::test::random_floats(1000);
  auto expected = data;
  kernel.run({{"a", data}});
  for (std::size_t i = 0; i < data.size(); ++i) {
    // One correctly rounded float32 product.
    const double exact = static_cast<double>(expected[i]) * expected[i];
    ASSERT_NEAR(data[i], exact, gpgpu::test::eps32 * std::abs(exact)) << i;
  }
}

TEST(SharedMemoryEstimate, CountsArraysOfMacrosConstantsAndStructs) {
  using gpgpu::detail::shared_memory_bytes;
  EXPECT_EQ(shared_memory_bytes("shared float a[16];"), 64);
  EXPECT_EQ(shared_memory_bytes("#define T 16\nshared vec4 a[T][T + 1];"), 16 * 16 * 17);
  EXPECT_EQ(shared_memory_bytes("const uint N = 8u;\nshared highp uint a[N * 2u], b;"), 4 * 17);
  EXPECT_EQ(shared_memory_bytes("shared vec3 a[4];"), 64) << "vec3 elements take 16 bytes";
  EXPECT_EQ(shared_memory_bytes("struct P { vec2 x; float w; };\nshared P p[10];"), 160);
  EXPECT_EQ(shared_memory_bytes("shared mat4 m[2];\nshared mat2x3 n;"), 128 + 32);
  EXPECT_EQ(shared_memory_bytes("// shared memory holds the tile;\nshared int s[3];"), 12);
  EXPECT_EQ(shared_memory_bytes("#if 0\nshared float no[1000];\n#endif\nshared float x;"), 4);
  EXPECT_EQ(shared_memory_bytes("shared float a[int(8)];"), 32);
  EXPECT_EQ(shared_memory_bytes("#define E vec4\n#define T E\n#define L 64\nshared T t[L];"), 1024)
      << "a type named by #defines";
  EXPECT_EQ(shared_memory_bytes("#define L 8\n#define TILE (L * 2)\nshared float t[TILE + 1];"), 68)
      << "an object-like macro whose value starts with '('";
  EXPECT_EQ(shared_memory_bytes("#define F(x) (x)\nshared float t[F(2)];"), std::nullopt);
  EXPECT_EQ(shared_memory_bytes("#define T sampler2D\nshared T t[4];"), std::nullopt);
  EXPECT_EQ(shared_memory_bytes("uniform int n;\nshared float a[n];"), std::nullopt)
      << "an extent that is not a constant: the driver decides";
  EXPECT_EQ(shared_memory_bytes("void main() {}"), 0);
}

// Buffer textures (gpgpu::texels) at GLSL ES 3.10: the device's extension is enabled for a
// kernel that compiles one (directly or through a #define), and a device without them refuses
// the kernel by name; core at 3.20, nothing is added.
TEST(TextureBuffers, EnabledWhereTheDeviceHasThemAndRefusedWhereNot) {
  using gpgpu::detail::complete_source;
  const auto complete = [](const std::string& source, const gpgpu::DeviceInfo& info) {
    return complete_source(source, GL_COMPUTE_SHADER, info, {}, "");
  };
  gpgpu::DeviceInfo es32;
  es32.gl_major = 3;
  es32.gl_minor = 2;
  gpgpu::DeviceInfo es31_ext = es32;
  es31_ext.gl_minor = 1;
  es31_ext.extensions = {"GL_OES_texture_buffer"};
  gpgpu::DeviceInfo es31 = es31_ext;
  es31.extensions = {};
  const std::string direct = "uniform highp samplerBuffer t;\nvoid main() {}\n";
  const std::string via_define =
      "#define KS usamplerBuffer\n#define KT KS\nuniform highp KT t;\nvoid main() {}\n";
  const std::string inactive =
      "#define KS usamplerBuffer\n#if 0\nuniform highp KS t;\n#endif\nvoid main() {}\n";
  const std::string ext = "#extension GL_OES_texture_buffer : require\n";
  EXPECT_EQ(complete(direct, es32).find("#extension"), std::string::npos);
  EXPECT_NE(complete(direct, es31_ext).find(ext), std::string::npos);
  EXPECT_NE(complete(via_define, es31_ext).find(ext), std::string::npos);
  EXPECT_EQ(complete(inactive, es31_ext).find("#extension"), std::string::npos);
  EXPECT_EQ(complete("#extension GL_OES_texture_buffer : enable\n" + direct, es31_ext).find(ext),
            std::string::npos)
      << "the kernel's own directive is kept";
  EXPECT_THROW(complete(direct, es31), gpgpu::UnsupportedError);
  EXPECT_THROW(complete(via_define, es31), gpgpu::UnsupportedError);
  EXPECT_NO_THROW(complete(inactive, es31));
  EXPECT_NO_THROW(complete("// samplerBuffer in a comment\nvoid main() {}\n", es31));
}

}  // namespace

namespace {

// Without GL_EXT_color_buffer_float, float and vec4 fragment outputs are rendered through
// integer twins: the host arrays must receive the very bits the shader computed.
TEST(Limits, FloatFragmentOutputsRenderThroughIntegerTargetsBitForBit) {
  gpgpu::FragmentKernel square(minimum(), R"(
    uniform sampler2D A;
    out float C;
    layout(location = 1) out vec4 D;
    void main() {
      float a = gpgpu_fetch(A, gpgpu_index()).r;
      C = a * a;
      D = vec4(a, -a, 1.0 / a, a * 0.5);
    })");
  const std::size_t n = 3001;
  const auto a = gpgpu::test::random_floats(n);
  auto texture = gpgpu::Texture::from_array(minimum(), gpgpu::TexelType::Float, a);
  std::vector<float> c(n, gpgpu::test::poison_float()), d(4 * n, gpgpu::test::poison_float());
  square.run({{"A", texture}, {"C", c}, {"D", d}});
  for (std::size_t i = 0; i < n; ++i) {
    // Each value is one correctly rounded float32 operation: exact to compare with the host's.
    ASSERT_EQ(c[i], a[i] * a[i]) << i;
    ASSERT_EQ(d[4 * i + 0], a[i]) << i;
    ASSERT_EQ(d[4 * i + 1], -a[i]) << i;
    ASSERT_NEAR(d[4 * i + 2], 1.0 / a[i], 3 * gpgpu::test::eps32 * std::abs(1.0 / a[i])) << i;
    ASSERT_EQ(d[4 * i + 3], a[i] * 0.5f) << i;
  }
}

TEST(Limits, FloatTextureOutputsReceiveTheBitsOfTheirIntegerTwins) {
  // A Texture output: the twin is rendered, then copied into the float Texture by a compute
  // pass; the Texture must hold the very values, for the next pass to sample.
  gpgpu::FragmentKernel k(minimum(), R"(
    uniform sampler2D A;
    out float C;
    void main() { float a = texelFetch(A, gpgpu_coord(), 0).r; C = a * a; })");
  const std::size_t rows = 37, cols = 53;
  const auto a = gpgpu::test::random_floats(rows * cols);
  auto in = gpgpu::Texture::from(minimum(), gpgpu::TexelType::Float, {rows, cols}, a);
  gpgpu::Texture out(minimum(), gpgpu::TexelType::Float, {rows, cols});
  k.run({{"A", in}, {"C", out}});
  const auto c = out.to_vector<float>();
  ASSERT_EQ(c.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(c[i], a[i] * a[i]) << i;  // one rounding
}

TEST(Limits, FloatFragmentOutputsThatCannotBeTwinnedAreRefusedByName) {
  const std::string vec2_message = gpgpu::test::error_message_of(
      [] { gpgpu::FragmentKernel k(minimum(), "out vec2 C; void main() { C = vec2(1.0); }"); });
  EXPECT_NE(vec2_message.find("GL_EXT_color_buffer_float"), std::string::npos) << vec2_message;
  EXPECT_NE(vec2_message.find("vec4"), std::string::npos) << vec2_message;
  // Four vec4 outputs at locations 0-3 need four more for their twins: past 4 render targets.
  const std::string many = gpgpu::test::error_message_of([] {
    gpgpu::FragmentKernel k(minimum(), R"(
      layout(location = 0) out vec4 A; layout(location = 1) out vec4 B;
      layout(location = 2) out vec4 C; layout(location = 3) out vec4 D;
      void main() { A = B = C = D = vec4(1.0); })");
  });
  EXPECT_NE(many.find("GL_MAX_DRAW_BUFFERS"), std::string::npos) << many;
}

}  // namespace
