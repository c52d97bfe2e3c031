#include "shader/glsl_outputs.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "shader/glsl_tokens.hpp"

namespace gpgpu::detail {

namespace {

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
  const auto t = active_tokens(source);
  std::vector<DeclaredOutput> outputs;
  for_each_global_statement(t, [&](std::size_t first, std::size_t last) {
    // Blocks (interface blocks, structs) declare no plain outputs.
    if (std::find(t.begin() + static_cast<std::ptrdiff_t>(first),
                  t.begin() + static_cast<std::ptrdiff_t>(last),
                  "{") != t.begin() + static_cast<std::ptrdiff_t>(last)) {
      return;
    }
    read_statement(t, first, last, outputs);
  });
  return outputs;
}

}  // namespace gpgpu::detail
