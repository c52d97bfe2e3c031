#include "shader/glsl_tokens.hpp"

#include <cctype>

#include "shader/glsl_preprocessor.hpp"

namespace gpgpu::detail {

namespace {

// The source without comments, each replaced by a space.
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

bool is_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

std::vector<std::string> active_tokens(std::string_view source) {
  const std::string code = active_lines(code_only(source));
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < code.size();) {
    if (std::isspace(static_cast<unsigned char>(code[i]))) {
      ++i;
    } else if (is_word(code[i])) {
      std::size_t j = i;
      while (j < code.size() && is_word(code[j])) ++j;
      tokens.push_back(code.substr(i, j - i));
      i = j;
    } else {
      tokens.emplace_back(1, code[i++]);
    }
  }
  return tokens;
}

void for_each_global_statement(const std::vector<std::string>& t,
                               const std::function<void(std::size_t, std::size_t)>& statement) {
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == "{") ++depth;
    if (t[i] == "}" && --depth == 0 && (i + 1 >= t.size() || t[i + 1] != ";")) {
      start = i + 1;  // a function body ends its statement (a block's "};" does not)
    }
    if (t[i] == ";" && depth == 0) {
      statement(start, i);
      start = i + 1;
    }
  }
}

}  // namespace gpgpu::detail
