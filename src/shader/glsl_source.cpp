#include "shader/glsl_source.hpp"

#include <algorithm>
#include <cctype>
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
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
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
    "precision highp uimage2D;\n"
    "precision highp iimage3D;\n"
    "precision highp uimage3D;\n";

bool is_identifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// A define the preprocessor would reject is reported here, by name, rather than as a
// compile error on a line the user never wrote.
void check_define(const std::string& name, const std::string& value) {
  if (!is_identifier(name)) {
    throw ArgumentError(fmt::format(
        "define '{}' is not a valid macro name: use letters, digits and _, not starting with "
        "a digit",
        name));
  }
  if (name.rfind("GL_", 0) == 0 || name.find("__") != std::string::npos) {
    throw ArgumentError(fmt::format(
        "define '{}' is reserved by GLSL (names starting with GL_ or containing __)", name));
  }
  if (name.rfind("gpgpu_", 0) == 0) {
    throw ArgumentError(
        fmt::format("define '{}' is reserved: names starting with gpgpu_ are gpgpu's", name));
  }
  if (value.find_first_of("\n\r") != std::string::npos) {
    throw ArgumentError(fmt::format("define {}: the value must be one line", name));
  }
}

// Texture buffers (samplerBuffer, imageBuffer; gpgpu::texels) are core in GLSL ES 3.20; in
// 3.10 they need GL_EXT_texture_buffer or GL_OES_texture_buffer, enabled for the shader
// here where the device has one, so that one source runs on both.
bool uses_texture_buffers(const std::vector<std::string>& lines) {
  for (const auto& line : lines) {
    if (line.find("samplerBuffer") != std::string::npos ||
        line.find("imageBuffer") != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::string texture_buffer_extension(const DeviceInfo& info) {
  for (const char* name : {"GL_EXT_texture_buffer", "GL_OES_texture_buffer"}) {
    if (info.has_extension(name)) return fmt::format("#extension {} : enable\n", name);
  }
  throw UnsupportedError(fmt::format(
      "the kernel uses a texture buffer (samplerBuffer or imageBuffer, as gpgpu::texels binds "
      "a Buffer), which needs OpenGL ES 3.2 or GL_EXT_texture_buffer; this device ({}, OpenGL "
      "ES 3.{}{}) has neither; read the Buffer as a storage buffer instead",
      info.renderer, info.gl_minor,
      info.limit_profile.empty() ? "" : ", device-limit profile " + info.limit_profile));
}

}  // namespace

int group_size(const DeviceInfo& info) {
  const std::int64_t fits = std::min<std::int64_t>(
      {256, info.max_compute_work_group_invocations, info.max_compute_work_group_size[0]});
  int size = 1;
  while (size * 2 <= fits) size *= 2;
  return size;
}

const char* stage_name(GLenum stage) {
  switch (stage) {
    case GL_COMPUTE_SHADER:
      return "compute";
    case GL_VERTEX_SHADER:
      return "vertex";
    case GL_FRAGMENT_SHADER:
      return "fragment";
    default:
      return "unknown";
  }
}

std::string complete_source(std::string_view user_source, GLenum stage, const DeviceInfo& info,
                            const Defines& defines, std::string_view library_prelude) {
  auto lines = split_lines(user_source);
  // GLSL ES follows the context: 3.20 and 3.10 natively, 3.00 in WebGL2 (OpenGL ES 3.0).
  std::string version = info.gl_minor >= 2   ? "#version 320 es"
                        : info.gl_minor == 1 ? "#version 310 es"
                                             : "#version 300 es";
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
  if (version == "#version 310 es" && uses_texture_buffers(lines)) {
    hoisted += texture_buffer_extension(info);
  }
  std::string out = version + "\n" + hoisted;
  for (const auto& [name, value] : defines) {
    check_define(name, value);
    out += fmt::format("#define {} {}\n", name, value);
  }
  if (stage == GL_COMPUTE_SHADER)
    out += fmt::format("#define gpgpu_group_size {}\n", group_size(info));
  out += precision_block;
  const bool has_images = info.gl_major > 3 || info.gl_minor >= 1;  // GLSL ES 3.10
  if (has_images && (stage == GL_COMPUTE_SHADER || stage == GL_FRAGMENT_SHADER)) {
    out += image_precision_block;
  }
  out += library_prelude;
  out += "#line 1\n";
  for (const auto& line : lines) {
    out += line;
    out += '\n';
  }
  return out;
}

namespace {

// The source lines a driver's log points at. Mesa writes "0:12(5): error", NVIDIA
// "0(12) : error", ANGLE "ERROR: 0:12:": a 0 (the source string) at the start of the log,
// after white space or after a colon, then ':' or '(' and the line number. Read by hand, not
// with std::regex: its bracket expressions consult the global locale's collate facet, and
// that lookup crashed (SIGSEGV in std::collate<char>::transform) inside the H100 machine's
// Python, though the same code passed in C++ programs on that machine.
std::set<int> error_line_numbers(std::string_view log) {
  std::set<int> lines;
  for (std::size_t i = 0; i + 2 < log.size(); ++i) {
    if (log[i] != '0' || (log[i + 1] != ':' && log[i + 1] != '(')) continue;
    const bool starts_a_reference =
        i == 0 || std::isspace(static_cast<unsigned char>(log[i - 1])) != 0 || log[i - 1] == ':';
    if (!starts_a_reference) continue;
    int number = 0;
    std::size_t j = i + 2;
    for (; j < log.size() && std::isdigit(static_cast<unsigned char>(log[j])) != 0; ++j) {
      if (number < 100'000'000) number = number * 10 + (log[j] - '0');
    }
    if (j > i + 2) lines.insert(number);
  }
  return lines;
}

}  // namespace

std::string annotate_log(std::string_view log, std::string_view user_source) {
  const std::set<int> error_lines = error_line_numbers(log);
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
