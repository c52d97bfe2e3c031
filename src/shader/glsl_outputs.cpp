#include "shader/glsl_outputs.hpp"

#include "shader/glsl_preprocessor.hpp"

#include <cctype>
#include <cstdlib>
#include <set>

namespace gpgpu::detail {

namespace {

// The source without comments, each replaced by a space (the lines the preprocessor keeps:
// glsl_preprocessor.hpp).
std::string code_only(std::string_view source) {
  std::string out;
  for (std::size_t i = 0; i < source.size();) {
    if (source.compare(i, 2, "//") == 0) {
      while (i < source.size() && source[i] != '\n') ++i;
    } else if (source.compare(i, 2, "/*") == 0) {
      const auto end = source.find("*/", i + 2);
      i = end == std::string_view::npos ? source.size() : end + 2;
      out += ' ';
    } else {
      out += source[i++];
    }
  }
  return out;
}

// Identifiers, numbers and single punctuation characters.
std::vector<std::string> tokens_of(const std::string& code) {
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < code.size();) {
    const auto c = static_cast<unsigned char>(code[i]);
    if (std::isspace(c)) {
      ++i;
    } else if (std::isalnum(c) || c == '_') {
      std::size_t j = i;
      while (j < code.size() &&
             (std::isalnum(static_cast<unsigned char>(code[j])) || code[j] == '_')) {
        ++j;
      }
      tokens.push_back(code.substr(i, j - i));
      i = j;
    } else {
      tokens.emplace_back(1, code[i++]);
    }
  }
  return tokens;
}

bool is_qualifier(const std::string& token) {
  static const std::set<std::string> qualifiers = {"flat",  "smooth",  "centroid", "invariant",
                                                   "highp", "mediump", "lowp",     "precise"};
  return qualifiers.count(token) > 0;
}

// One global statement's tokens [first, last): an output declaration adds its names.
void read_statement(const std::vector<std::string>& t, std::size_t first, std::size_t last,
                    std::vector<DeclaredOutput>& outputs) {
  std::size_t i = first;
  if (i < last && t[i] == "layout") {  // layout( ... )
    int depth = 0;
    for (++i; i < last; ++i) {
      if (t[i] == "(") ++depth;
      if (t[i] == ")" && --depth == 0) {
        ++i;
        break;
      }
    }
  }
  bool is_output = false;
  for (; i < last && (t[i] == "out" || is_qualifier(t[i])); ++i) is_output |= t[i] == "out";
  if (!is_output || i >= last) return;
  const std::string type = t[i++];
  while (i < last) {
    DeclaredOutput d{type, t[i++], 1};
    if (i + 2 < last && t[i] == "[") {
      d.array_size = std::atoi(t[i + 1].c_str());
      i += 3;
    }
    outputs.push_back(d);
    if (i < last && t[i] == ",")
      ++i;
    else
      break;
  }
}

}  // namespace

std::vector<DeclaredOutput> declared_outputs(std::string_view source) {
  const auto t = tokens_of(active_lines(code_only(source)));
  std::vector<DeclaredOutput> outputs;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == "{") ++depth;
    if (t[i] == "}") {
      --depth;
      start = i + 1;
    }
    if (t[i] == ";" && depth == 0) {
      read_statement(t, start, i, outputs);
      start = i + 1;
    }
  }
  return outputs;
}

}  // namespace gpgpu::detail
