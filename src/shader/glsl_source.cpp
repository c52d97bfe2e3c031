#include "shader/glsl_source.hpp"

#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::detail {

namespace {

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream stream{std::string(text)};
  while (std::getline(stream, line)) lines.push_back(line);
  return lines;
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  return s;
}

bool starts_directive(std::string_view line, std::string_view directive) {
  line = trim_left(line);
  if (line.empty() || line.front() != '#') return false;
  line.remove_prefix(1);
  line = trim_left(line);
  return line.substr(0, directive.size()) == directive;
}

// Default precisions: GLSL ES has no default for float in fragment shaders, nor for any
// sampler or image type beyond sampler2D; users should not have to know which.
constexpr std::string_view precision_block =
    "precision highp float;\n"
    "precision highp int;\n"
    "precision highp sampler2D;\n"
    "precision highp sampler3D;\n"
    "precision highp sampler2DArray;\n"
    "precision highp isampler2D;\n"
    "precision highp isampler3D;\n"
    "precision highp usampler2D;\n"
    "precision highp usampler3D;\n";

constexpr std::string_view image_precision_block =
    "precision highp image2D;\n"
    "precision highp image3D;\n"
    "precision highp iimage2D;\n"
    "precision highp uimage2D;\n";

}  // namespace

const char* stage_name(GLenum stage) {
  switch (stage) {
    case GL_COMPUTE_SHADER: return "compute";
    case GL_VERTEX_SHADER: return "vertex";
    case GL_FRAGMENT_SHADER: return "fragment";
    default: return "unknown";
  }
}

std::string complete_source(std::string_view user_source, GLenum stage, const DeviceInfo& info,
                            const Defines& defines, std::string_view library_prelude) {
  auto lines = split_lines(user_source);
  std::string version = info.gl_minor >= 2 ? "#version 320 es" : "#version 310 es";
  std::string hoisted;
  bool seen_code = false;
  for (auto& line : lines) {
    auto t = trim_left(line);
    if (starts_directive(line, "version")) {
      if (seen_code) {
        throw CompileError("#version must be the first line of the shader source", "");
      }
      version = std::string(t);
      line.clear();
    } else if (starts_directive(line, "extension")) {
      hoisted += std::string(t) + "\n";
      line.clear();
    } else if (!t.empty() && t.substr(0, 2) != "//") {
      seen_code = true;
    }
  }
  std::string out = version + "\n" + hoisted;
  for (const auto& [name, value] : defines) {
    if (name.empty() || name.find_first_of(" \t\n(") != std::string::npos) {
      throw ArgumentError(fmt::format("define name '{}' is not a valid macro name", name));
    }
    out += fmt::format("#define {} {}\n", name, value);
  }
  out += precision_block;
  if (stage == GL_COMPUTE_SHADER || stage == GL_FRAGMENT_SHADER) out += image_precision_block;
  out += library_prelude;
  out += "#line 1\n";
  for (const auto& line : lines) {
    out += line;
    out += '\n';
  }
  return out;
}

std::string annotate_log(std::string_view log, std::string_view user_source) {
  // Mesa writes "0:12(5): error", NVIDIA "0(12) : error", ANGLE "ERROR: 0:12:".
  static const std::regex line_ref(R"((?:^|\s|:)0[:(](\d+))");
  std::set<int> error_lines;
  const std::string log_text(log);
  for (std::sregex_iterator it(log_text.begin(), log_text.end(), line_ref), end; it != end; ++it) {
    error_lines.insert(std::stoi((*it)[1].str()));
  }
  const auto lines = split_lines(user_source);
  const int count = static_cast<int>(lines.size());
  auto shown = [&](int number) {
    if (count <= 60) return true;
    for (int e : error_lines) {
      if (number >= e - 3 && number <= e + 3) return true;
    }
    return false;
  };
  std::string out(log);
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += "source (error lines marked >>):\n";
  bool skipped = false;
  for (int number = 1; number <= count; ++number) {
    if (!shown(number)) {
      if (!skipped) out += "     ...\n";
      skipped = true;
      continue;
    }
    skipped = false;
    out += fmt::format("{}{:4} | {}\n", error_lines.count(number) ? ">>" : "  ", number,
                       lines[static_cast<std::size_t>(number - 1)]);
  }
  return out;
}

}  // namespace gpgpu::detail
