// detail::complete_source and detail::annotate_log: the text gpgpu wraps around a user's
// GLSL, and how driver errors are mapped back to the user's lines. Pure string functions: no
// GL context is needed.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/error.hpp"
#include "shader/glsl_source.hpp"

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  std::string line;
  while (std::getline(stream, line)) lines.push_back(line);
  return lines;
}

gpgpu::DeviceInfo gles(int minor) {
  gpgpu::DeviceInfo info;
  info.gl_major = 3;
  info.gl_minor = minor;
  return info;
}

std::string complete(const std::string& user, const gpgpu::Defines& defines = {}, int minor = 2,
                     const std::string& prelude = "") {
  return gpgpu::detail::complete_source(user, GL_COMPUTE_SHADER, gles(minor), defines, prelude);
}

// The user's lines as the driver sees them: everything after the "#line 1" gpgpu inserts.
std::vector<std::string> user_part(const std::string& completed) {
  const auto lines = lines_of(completed);
  std::size_t first = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == "#line 1") first = i + 1;
  }
  EXPECT_GT(first, 0u) << "no #line 1 in:\n" << completed;
  return {lines.begin() + static_cast<std::ptrdiff_t>(first), lines.end()};
}

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(GlslSource, AddsTheVersionOfTheContext) {
  EXPECT_EQ(lines_of(complete("void main() {}\n", {}, 2)).at(0), "#version 320 es");
  EXPECT_EQ(lines_of(complete("void main() {}\n", {}, 1)).at(0), "#version 310 es");
}

TEST(GlslSource, KeepsTheUsersVersionAndLineNumbers) {
  const std::string user =
      "// header comment\n"
      "#version 310 es\n"
      "layout(local_size_x = 1) in;\n"
      "void main() {}\n";
  const std::string out = complete(user);
  EXPECT_EQ(lines_of(out).at(0), "#version 310 es");
  EXPECT_EQ(count_of(out, "#version"), 1u);
  // Same number of lines, each where the user put it; the #version line is left blank.
  EXPECT_EQ(user_part(out),
            (std::vector<std::string>{"// header comment", "", "layout(local_size_x = 1) in;",
                                      "void main() {}"}));
}

TEST(GlslSource, HoistsExtensionsAboveEverything) {
  const std::string user =
      "layout(local_size_x = 1) in;\n"
      "  #extension GL_OES_shader_image_atomic : enable\n"
      "void main() {}\n"
      "#extension GL_EXT_texture_buffer : enable\n";
  const std::string out = complete(user, {{"N", "4"}}, 2, "uint helper() { return 1u; }\n");
  const auto lines = lines_of(out);
  EXPECT_EQ(lines.at(0), "#version 320 es");
  EXPECT_EQ(lines.at(1), "#extension GL_OES_shader_image_atomic : enable");
  EXPECT_EQ(lines.at(2), "#extension GL_EXT_texture_buffer : enable");
  // Both directives appear once, above the defines, the prelude and the user's code.
  EXPECT_EQ(count_of(out, "#extension GL_OES_shader_image_atomic"), 1u);
  EXPECT_LT(out.find("#extension GL_EXT_texture_buffer"), out.find("#define N"));
  EXPECT_LT(out.find("#extension GL_EXT_texture_buffer"), out.find("uint helper()"));
  EXPECT_EQ(user_part(out),
            (std::vector<std::string>{"layout(local_size_x = 1) in;", "", "void main() {}", ""}));
}

TEST(GlslSource, AddsDefinesAndPreludeBeforeTheUsersCode) {
  const std::string out =
      complete("void main() {}\n", {{"TILE", "16"}, {"USE_FMA", ""}}, 2, "uint gpgpu_x;\n");
  const auto define_tile = out.find("#define TILE 16\n");
  const auto define_fma = out.find("#define USE_FMA \n");
  const auto prelude = out.find("uint gpgpu_x;\n");
  const auto line = out.find("#line 1\n");
  ASSERT_NE(define_tile, std::string::npos) << out;
  ASSERT_NE(define_fma, std::string::npos) << out;
  ASSERT_NE(prelude, std::string::npos) << out;
  EXPECT_LT(define_tile, line);
  EXPECT_LT(define_fma, line);
  EXPECT_LT(prelude, line);
  EXPECT_NE(out.find("precision highp float;"), std::string::npos);
  EXPECT_EQ(user_part(out), std::vector<std::string>{"void main() {}"});
}

TEST(GlslSource, RejectsBadDefineNames) {
  EXPECT_THROW(complete("void main() {}\n", {{"", "1"}}), gpgpu::ArgumentError);
  EXPECT_THROW(complete("void main() {}\n", {{"TWO WORDS", "1"}}), gpgpu::ArgumentError);
  EXPECT_THROW(complete("void main() {}\n", {{"F(x)", "x"}}), gpgpu::ArgumentError);
}

TEST(GlslSource, VersionAfterCodeIsAnError) {
  EXPECT_THROW(complete("void main() {}\n#version 310 es\n"), gpgpu::CompileError);
}

TEST(GlslSource, AnnotateLogMarksTheLinesTheDriverNames) {
  const std::string user = "line one\nline two\nline three\nline four\n";
  // Mesa's format.
  std::string out = gpgpu::detail::annotate_log("0:3(7): error: something wrong", user);
  EXPECT_NE(out.find("0:3(7): error: something wrong"), std::string::npos) << out;
  EXPECT_NE(out.find(">>   3 | line three"), std::string::npos) << out;
  EXPECT_NE(out.find("     2 | line two"), std::string::npos) << out;
  EXPECT_EQ(count_of(out, "\n>>"), 1u) << out;
  // NVIDIA's format, two errors.
  out = gpgpu::detail::annotate_log("0(1) : error C0000: x\n0(4) : error C0001: y\n", user);
  EXPECT_NE(out.find(">>   1 | line one"), std::string::npos) << out;
  EXPECT_NE(out.find(">>   4 | line four"), std::string::npos) << out;
  EXPECT_EQ(count_of(out, "\n>>"), 2u) << out;
  // ANGLE's format; "10:2" and "x0(3)" are not references to source string 0.
  out = gpgpu::detail::annotate_log("ERROR: 0:2: 'y' : undeclared\nat 10:2 and x0(3)\n", user);
  EXPECT_NE(out.find(">>   2 | line two"), std::string::npos) << out;
  EXPECT_EQ(count_of(out, "\n>>"), 1u) << out;
  // No line number at all: the source is listed, nothing marked.
  out = gpgpu::detail::annotate_log("0:(: internal error", user);
  EXPECT_EQ(count_of(out, "\n>>"), 0u) << out;
}

TEST(GlslSource, AnnotateLogShowsOnlyTheNeighbourhoodOfLongSources) {
  std::string user;
  for (int i = 1; i <= 100; ++i) user += "statement " + std::to_string(i) + ";\n";
  const std::string out = gpgpu::detail::annotate_log("0:50(1): error: here", user);
  EXPECT_NE(out.find(">>  50 | statement 50;"), std::string::npos) << out;
  EXPECT_NE(out.find("    47 | statement 47;"), std::string::npos) << out;
  EXPECT_NE(out.find("    53 | statement 53;"), std::string::npos) << out;
  EXPECT_EQ(out.find("statement 10;"), std::string::npos) << out;
  EXPECT_EQ(out.find("statement 90;"), std::string::npos) << out;
}

}  // namespace
