#include "py_glsl_qualifiers.hpp"

#include <cctype>
#include <map>
#include <vector>

namespace gpgpu::python {

namespace {

// The source without comments and preprocessor lines, as identifiers and single punctuation
// characters (numbers count as identifiers: they only need to be skipped).
std::vector<std::string> tokens_of(std::string_view s) {
  std::vector<std::string> tokens;
  bool line_start = true;
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (s.compare(i, 2, "//") == 0 || (line_start && c == '#')) {
      while (i < s.size() && s[i] != '\n') i += s[i] == '\\' && i + 1 < s.size() ? 2 : 1;
    } else if (s.compare(i, 2, "/*") == 0) {
      const auto end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      tokens.emplace_back(s.substr(i, j - i));
      i = j;
      line_start = false;
    } else {
      if (c == '\n') line_start = true;
      if (!std::isspace(static_cast<unsigned char>(c))) {
        tokens.emplace_back(1, c);
        line_start = false;
      }
      ++i;
    }
  }
  return tokens;
}

bool is_declaration_boundary(const std::string& t) {
  return t == ";" || t == "{" || t == "}";
}

// Whether `readonly` appears among the qualifiers before tokens[at] (back to the previous
// declaration's end).
bool readonly_before(const std::vector<std::string>& tokens, std::size_t at) {
  while (at > 0 && !is_declaration_boundary(tokens[at - 1])) {
    if (tokens[--at] == "readonly") return true;
  }
  return false;
}

struct Block {
  std::string name, member;
  bool readonly = false;
};

// The block starting at tokens[at] == "buffer" (followed by a name and "{"), if it is one.
bool parse_block(const std::vector<std::string>& tokens, std::size_t at, Block& block) {
  if (at + 2 >= tokens.size() || tokens[at + 2] != "{") return false;
  block.name = tokens[at + 1];
  block.readonly = readonly_before(tokens, at);
  int members = 0;
  bool member_readonly = false;
  std::size_t i = at + 3;
  for (; i < tokens.size() && tokens[i] != "}"; ++i) {
    if (tokens[i] != ";") continue;
    ++members;
    member_readonly = readonly_before(tokens, i);
    // The member's name: the identifier before "[" or ";".
    std::size_t j = i;
    while (j > 0 && (tokens[j - 1] == "]" || tokens[j - 1] == "[" ||
                     std::isdigit(static_cast<unsigned char>(tokens[j - 1][0])))) {
      --j;
    }
    if (j > 0) block.member = tokens[j - 1];
  }
  if (members == 1 && member_readonly) block.readonly = true;
  if (members != 1) block.member.clear();
  return true;
}

}  // namespace

std::set<std::string> readonly_storage_blocks(std::string_view source) {
  const auto tokens = tokens_of(source);
  std::map<std::string, bool> all_readonly;  // by block name and member name
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    Block block;
    if (tokens[i] != "buffer" || !parse_block(tokens, i, block)) continue;
    for (const auto& name : {block.name, block.member}) {
      if (name.empty()) continue;
      auto [it, inserted] = all_readonly.emplace(name, block.readonly);
      if (!inserted) it->second = it->second && block.readonly;
    }
  }
  std::set<std::string> names;
  for (const auto& [name, readonly] : all_readonly) {
    if (readonly) names.insert(name);
  }
  return names;
}

}  // namespace gpgpu::python
