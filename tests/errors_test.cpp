// Errors: every failure is a gpgpu::Error subclass whose message says what to change, and a
// failed run leaves the caller's arrays exactly as they were.
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/gpgpu.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::test::poison_float;

gpgpu::Context& ctx() {
  return gpgpu::test::context();
}

using gpgpu::test::same_float_bits;

// Runs `call`, which must throw E; returns the message. The caller then checks its arrays.
template <class E, class Call>
std::string expect_error(Call&& call) {
  try {
    call();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw the wrong exception type: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "did not throw";
  return {};
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' is missing from:\n" << text;
}

// c = alpha * a + b over float arrays; its output c is what every failing call must leave alone.
constexpr const char* kAxpySource = R"(
  layout(local_size_x = 64) in;
  layout(std430, binding = 0) readonly buffer A { float a[]; };
  layout(std430, binding = 1) readonly buffer B { float b[]; };
  layout(std430, binding = 2) writeonly buffer C { float c[]; };
  uniform float alpha;
  void main() {
    uint i = gpgpu_index();
    if (i < gpgpu_count) c[i] = alpha * a[i] + b[i];
  })";

// The caller's arrays for one axpy call: c holds random values (not poison, so that a stray
// write of poison-like data would also show) and a copy to compare against after the error.
struct AxpyArrays {
  explicit AxpyArrays(std::size_t n)
      : a(gpgpu::test::random_floats(n)),
        b(gpgpu::test::random_floats(n)),
        c(gpgpu::test::random_floats(n)),
        a_before(a),
        b_before(b),
        c_before(c) {}
  std::vector<float> a, b, c;
  const std::vector<float> a_before, b_before, c_before;
  bool unchanged() const {
    return same_float_bits(a, a_before) && same_float_bits(b, b_before) &&
           same_float_bits(c, c_before);
  }
};

// --- compile and link errors -----------------------------------------------------------------

// The error is on user line 9; the source has a #version line and an #extension line placed
// after code (legal only because gpgpu hoists it), and gpgpu adds defines, precisions and its
// prelude above the user's code. None of that may shift the line numbers.
TEST(Errors, CompileErrorShowsDriverLogAndTheUsersLineNumber) {
  const std::string source =
      "#version 310 es\n"                                             // 1
      "// a comment before the code\n"                                // 2
      "layout(local_size_x = 64) in;\n"                               // 3
      "#extension GL_OES_shader_image_atomic : enable\n"              // 4
      "layout(std430, binding = 0) buffer C { float c[]; };\n"        // 5
      "\n"                                                            // 6
      "void main() {\n"                                               // 7
      "  uint i = gpgpu_index();\n"                                   // 8
      "  if (i < gpgpu_count) c[i] = undeclared_variable * SCALE;\n"  // 9
      "}\n";                                                          // 10
  try {
    gpgpu::ComputeKernel kernel(ctx(), source, {{"SCALE", "2.0"}, {"EXTRA", "1"}}, "my kernel");
    FAIL() << "compiled";
  } catch (const gpgpu::CompileError& e) {
    const std::string message = e.what();
    EXPECT_FALSE(e.log().empty());
    expect_contains(message, e.log());  // the driver's own words
    expect_contains(message, "my kernel");
    expect_contains(message, "undeclared_variable");
    // The listing marks exactly one line, line 9, with the text the user wrote there.
    expect_contains(message, ">>   9 |   if (i < gpgpu_count) c[i] = undeclared_variable * SCALE;");
    std::size_t marks = 0;
    // Marked lines start with ">>" (the listing's header mentions ">>" too, mid-line).
    for (auto at = message.find("\n>>"); at != std::string::npos;
         at = message.find("\n>>", at + 3)) {
      ++marks;
    }
    EXPECT_EQ(marks, 1u) << message;
    // The listing is the source as the user wrote it, directives included.
    expect_contains(message, "     4 | #extension GL_OES_shader_image_atomic : enable\n");
    expect_contains(message, "     1 | #version 310 es\n");
  }
}

TEST(Errors, CompileErrorLineNumbersWithoutVersionLine) {
  const std::string source =
      "layout(local_size_x = 64) in;\n"                         // 1
      "layout(std430, binding = 0) buffer C { float c[]; };\n"  // 2
      "void main() {\n"                                         // 3
      "  c[0] = vec2(1.0);\n"                                   // 4: vec2 into a float
      "}\n";
  try {
    gpgpu::ComputeKernel kernel(ctx(), source, {{"UNUSED", "3"}});
    FAIL() << "compiled";
  } catch (const gpgpu::CompileError& e) {
    expect_contains(e.what(), ">>   4 |   c[0] = vec2(1.0);");
  }
}

TEST(Errors, VersionAfterCodeIsACompileError) {
  expect_error<gpgpu::CompileError>([] {
    gpgpu::ComputeKernel kernel(ctx(),
                                "layout(local_size_x = 1) in;\n#version 310 es\nvoid main() {}\n");
  });
}

TEST(Errors, LinkErrorShowsTheLog) {
  const std::string message = expect_error<gpgpu::CompileError>([] {
    gpgpu::ComputeKernel kernel(ctx(), R"(
      layout(local_size_x = 64) in;
      layout(std430, binding = 0) buffer C { float c[]; };
      float declared_but_never_defined(float x);
      void main() { c[0] = declared_but_never_defined(1.0); })");
  });
  expect_contains(message, "link");
  expect_contains(message, "declared_but_never_defined");
}

// --- arguments that do not fit the kernel ----------------------------------------------------

TEST(Errors, UnknownArgumentListsTheKernelsVariables) {
  gpgpu::ComputeKernel kernel(ctx(), kAxpySource);
  AxpyArrays x(100);
  const std::string message = expect_error<gpgpu::UnknownArgumentError>([&] {
    kernel.run({{"a", x.a}, {"b", x.b}, {"c", gpgpu::out(x.c)}, {"alpha", 2.0f}, {"beta", 1.0f}});
  });
  EXPECT_TRUE(x.unchanged());
  expect_contains(message, "'beta'");
  for (const char* variable : {"buffer A", "a[", "buffer B", "b[", "buffer C", "c[", "alpha"}) {
    expect_contains(message, variable);
  }
  EXPECT_EQ(message.find("gpgpu_count"), std::string::npos) << "internal uniforms are not listed";
}

TEST(Errors, MissingArgumentsAreAllNamed) {
  gpgpu::ComputeKernel kernel(ctx(), kAxpySource);
  AxpyArrays x(100);
  const std::string message = expect_error<gpgpu::MissingArgumentError>([&] {
    kernel.run({{"a", x.a}, {"c", gpgpu::out(x.c)}});
  });
  EXPECT_TRUE(x.unchanged());
  expect_contains(message, "buffer B (b)");
  expect_contains(message, "uniform float alpha");
  EXPECT_EQ(message.find("buffer A"), std::string::npos) << "a was given";
}

TEST(Errors, ReservedAndDuplicateNames) {
  gpgpu::ComputeKernel kernel(ctx(), kAxpySource);
  AxpyArrays x(100);
  expect_error<gpgpu::ArgumentError>([&] {
    kernel.run(
        {{"a", x.a}, {"b", x.b}, {"c", gpgpu::out(x.c)}, {"alpha", 2.0f}, {"gpgpu_count", 5u}});
  });
  EXPECT_TRUE(x.unchanged());
  // "A" and "a" name the same block.
  expect_error<gpgpu::ArgumentError>([&] {
    kernel.run({{"a", x.a}, {"A", x.a}, {"b", x.b}, {"c", gpgpu::out(x.c)}, {"alpha", 2.0f}});
  });
  EXPECT_TRUE(x.unchanged());
}

TEST(Errors, WrongElementTypeIsATypeMismatch) {
  gpgpu::ComputeKernel kernel(ctx(), kAxpySource);
  AxpyArrays x(100);
  const auto ints = gpgpu::test::random_ints(100, -1000, 1000);
  std::string message = expect_error<gpgpu::TypeMismatchError>([&] {
    kernel.run({{"a", ints}, {"b", x.b}, {"c", gpgpu::out(x.c)}, {"alpha", 2.0f}});
  });
  EXPECT_TRUE(x.unchanged());
  expect_contains(message, "'a'");
  expect_contains(message, "int32");
  expect_contains(message, "float");
  // An int where the float uniform alpha is declared.
  message = expect_error<gpgpu::TypeMismatchError>([&] {
    kernel.run({{"a", x.a}, {"b", x.b}, {"c", gpgpu::out(x.c)}, {"alpha", std::int32_t{2}}});
  });
  EXPECT_TRUE(x.unchanged());
  expect_contains(message, "alpha");
  // A Buffer where a uniform is declared.
  auto buffer = gpgpu::Buffer::from(ctx(), x.a);
  expect_error<gpgpu::TypeMismatchError>([&] {
    kernel.run({{"a", x.a}, {"b", x.b}, {"c", gpgpu::out(x.c)}, {"alpha", buffer}});
  });
  EXPECT_TRUE(x.unchanged());
  // A scalar where a storage array is declared.
  expect_error<gpgpu::TypeMismatchError>([&] {
    kernel.run({{"a", 1.0f}, {"b", x.b}, {"c", gpgpu::out(x.c)}, {"alpha", 2.0f}});
  });
  EXPECT_TRUE(x.unchanged());
}

TEST(Errors, Vec3ArrayOfTheWrongLengthIsASizeMismatch) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) readonly buffer P { vec3 points[]; };
    layout(std430, binding = 1) writeonly buffer L { float lengths[]; };
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) lengths[i] = length(points[i]);
    })");
  const auto points = gpgpu::test::random_floats(3 * 50 + 1);
  auto lengths = gpgpu::test::random_floats(50);
  const auto before = lengths;
  const std::string message = expect_error<gpgpu::SizeMismatchError>([&] {
    kernel.run({{"points", points}, {"lengths", gpgpu::out(lengths)}});
  });
  EXPECT_TRUE(same_float_bits(lengths, before));
  expect_contains(message, "vec3");
  expect_contains(message, "151");
  expect_contains(message, "multiple of 3");
}

TEST(Errors, UniformWithTheWrongNumberOfValues) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) writeonly buffer C { float c[]; };
    uniform vec3 v;
    uniform mat3 m;
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) c[i] = dot(m * v, v);
    })");
  auto c = gpgpu::test::random_floats(10);
  const auto before = c;
  const std::array<float, 9> m{1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::string message = expect_error<gpgpu::SizeMismatchError>([&] {
    kernel.run({{"c", gpgpu::out(c)}, {"v", std::array<float, 2>{1, 2}}, {"m", m}});
  });
  EXPECT_TRUE(same_float_bits(c, before));
  expect_contains(message, "vec3 v");
  expect_contains(message, "needs 3");
  message = expect_error<gpgpu::SizeMismatchError>([&] {
    kernel.run({{"c", gpgpu::out(c)},
                {"v", std::array<float, 3>{1, 2, 3}},
                {"m", std::array<float, 4>{1, 2, 3, 4}}});
  });
  EXPECT_TRUE(same_float_bits(c, before));
  expect_contains(message, "mat3 m");
}

TEST(Errors, TwoBlocksSharingABindingAreRejectedClearly) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 1) readonly buffer A { float a[]; };
    layout(std430, binding = 1) writeonly buffer C { float c[]; };
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) c[i] = a[i];
    })");
  const auto a = gpgpu::test::random_floats(64);
  auto c = gpgpu::test::random_floats(64);
  const auto before = c;
  const std::string message = expect_error<gpgpu::ArgumentError>([&] {
    kernel.run({{"a", a}, {"c", gpgpu::out(c)}});
  });
  EXPECT_TRUE(same_float_bits(c, before));
  expect_contains(message, "share binding 1");
  expect_contains(message, "A");
  expect_contains(message, "C");
}

TEST(Errors, ArraysOfDisagreeingLengthNeedAnExplicitCount) {
  gpgpu::ComputeKernel kernel(ctx(), kAxpySource);
  AxpyArrays x(100);
  x.b = gpgpu::test::random_floats(99);
  const std::vector<float> b_before = x.b;
  const std::string message = expect_error<gpgpu::SizeMismatchError>([&] {
    kernel.run({{"a", x.a}, {"b", x.b}, {"c", gpgpu::out(x.c)}, {"alpha", 2.0f}});
  });
  EXPECT_TRUE(same_float_bits(x.a, x.a_before));
  EXPECT_TRUE(same_float_bits(x.b, b_before));
  EXPECT_TRUE(same_float_bits(x.c, x.c_before));
  expect_contains(message, "a=100");
  expect_contains(message, "b=99");
  expect_contains(message, "pass it to run()");
}

TEST(Errors, DispatchLimits) {
  gpgpu::ComputeKernel kernel(ctx(), kAxpySource);
  AxpyArrays x(64);
  const gpgpu::Args args = {{"a", x.a}, {"b", x.b}, {"c", gpgpu::out(x.c)}, {"alpha", 2.0f}};
  const auto& info = ctx().info();
  const auto max_x = static_cast<std::size_t>(info.max_compute_work_group_count[0]);
  const auto max_y = static_cast<std::size_t>(info.max_compute_work_group_count[1]);

  expect_error<gpgpu::LimitError>([&] { kernel.run_groups(args, {max_x + 1, 1, 1}); });
  EXPECT_TRUE(x.unchanged());
  expect_error<gpgpu::LimitError>([&] { kernel.run_groups(args, {1, max_y + 1, 1}); });
  EXPECT_TRUE(x.unchanged());
  // A Size3 of items whose groups exceed the limit in y (Size3 runs are never split).
  expect_error<gpgpu::LimitError>([&] { kernel.run(args, gpgpu::Size3{1, max_y + 1, 1}); });
  EXPECT_TRUE(x.unchanged());
  // More than 2^32 items: gpgpu_count is a uint.
  const std::string message =
      expect_error<gpgpu::LimitError>([&] { kernel.run(args, (std::size_t{1} << 32) + 64); });
  EXPECT_TRUE(x.unchanged());
  expect_contains(message, "2^32");
  // Zero items and an empty group count are argument errors, not silent no-ops.
  expect_error<gpgpu::ArgumentError>([&] { kernel.run(args, std::size_t{0}); });
  expect_error<gpgpu::ArgumentError>([&] { kernel.run_groups(args, {0, 1, 1}); });
  EXPECT_TRUE(x.unchanged());
}

TEST(Errors, StorageArrayBeyondTheBlockSizeLimit) {
  const auto limit = ctx().info().max_shader_storage_block_size;
  if (limit > (std::int64_t{1} << 30)) {
    GTEST_SKIP() << "the device binds " << limit << " bytes to a block; too much to allocate here";
  }
  gpgpu::ComputeKernel kernel(ctx(), kAxpySource);
  AxpyArrays x(64);
  // One float more than the limit allows, as the input a (its contents are never read).
  const std::vector<float> huge(static_cast<std::size_t>(limit) / 4 + 1, 1.0f);
  const std::string message = expect_error<gpgpu::LimitError>([&] {
    kernel.run({{"a", huge}, {"b", x.b}, {"c", gpgpu::out(x.c)}, {"alpha", 2.0f}}, 64);
  });
  EXPECT_TRUE(x.unchanged());
  expect_contains(message, "GL_MAX_SHADER_STORAGE_BLOCK_SIZE");
}

TEST(Errors, HostArrayForAMultiMemberBlockAsksForABuffer) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) buffer Params { float scale; float values[]; };
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) values[i] *= scale;
    })");
  auto values = gpgpu::test::random_floats(65);
  const auto before = values;
  const std::string message = expect_error<gpgpu::ArgumentError>([&] {
    kernel.run({{"Params", values}}, 64);
  });
  EXPECT_TRUE(same_float_bits(values, before));
  expect_contains(message, "gpgpu::Buffer");
}

TEST(Errors, EveryErrorIsAGpgpuError) {
  // Callers that do not care which kind can catch the base class.
  gpgpu::ComputeKernel kernel(ctx(), kAxpySource);
  AxpyArrays x(10);
  EXPECT_THROW(kernel.run({{"nope", x.a}}), gpgpu::Error);
  EXPECT_THROW(gpgpu::ComputeKernel(ctx(), "void main() { syntax error }"), gpgpu::Error);
  EXPECT_TRUE(x.unchanged());
}

}  // namespace
