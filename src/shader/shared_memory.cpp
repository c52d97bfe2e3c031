#include "shader/shared_memory.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "shader/glsl_preprocessor.hpp"

// Read by hand over tokens, not with std::regex (see glsl_source.cpp: its bracket expressions
// crashed inside one machine's Python).
namespace gpgpu::detail {

namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// The source without its comments (a comment may say "shared memory holds ...").
std::string without_comments(std::string_view source) {
  std::string out;
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source.compare(i, 2, "//") == 0) {
      while (i < source.size() && source[i] != '\n') ++i;
      if (i < source.size()) out += '\n';
    } else if (source.compare(i, 2, "/*") == 0) {
      const auto end = source.find("*/", i + 2);
      for (std::size_t j = i; j < std::min(end, source.size()); ++j) {
        if (source[j] == '\n') out += '\n';  // keeps line numbers
      }
      i = end == std::string_view::npos ? source.size() : end + 1;
    } else {
      out += source[i];
    }
  }
  return out;
}

// Words (identifiers and numbers) and single punctuation characters.
std::vector<std::string> tokens(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    if (std::isspace(static_cast<unsigned char>(text[i])) != 0) {
      ++i;
    } else if (is_word_char(text[i])) {
      const std::size_t start = i;
      while (i < text.size() && is_word_char(text[i])) ++i;
      out.emplace_back(text.substr(start, i - start));
    } else {
      out.emplace_back(1, text[i++]);
    }
  }
  return out;
}

bool is_precision(const std::string& word) {
  return word == "highp" || word == "mediump" || word == "lowp";
}

using StructSizes = std::map<std::string, long long, std::less<>>;

// Bytes of one element of a GLSL type, laid out as std430 arrays are (a vec3 takes a vec4's
// 16 bytes, a matrix its columns as vectors); 0 for a type that is not a plain one.
long long type_bytes(const std::string& type, const StructSizes& structs) {
  const auto vector_bytes = [](char n) { return n == '2' ? 8 : n == '3' || n == '4' ? 16 : 0; };
  if (type == "float" || type == "int" || type == "uint" || type == "bool") return 4;
  std::string_view t = type;
  if (!t.empty() && (t[0] == 'i' || t[0] == 'u' || t[0] == 'b')) t.remove_prefix(1);
  if (t.size() == 4 && t.substr(0, 3) == "vec") return vector_bytes(t[3]);
  if (type.size() == 4 && type.compare(0, 3, "mat") == 0) {
    return (type[3] - '0') * vector_bytes(type[3]);
  }
  if (type.size() == 6 && type.compare(0, 3, "mat") == 0 && type[4] == 'x') {
    return (type[3] - '0') * vector_bytes(type[5]);
  }
  const auto it = structs.find(type);
  return it != structs.end() ? it->second : 0;
}

// Reads tokens of declarations: `TYPE name[A][B], name2;` and the like.
class Reader {
 public:
  Reader(const std::vector<std::string>& tokens, const Macros& names)
      : t_(tokens), names_(names) {}

  bool done() const { return at_ >= t_.size(); }
  const std::string& peek(std::size_t ahead = 0) const {
    static const std::string none;
    return at_ + ahead < t_.size() ? t_[at_ + ahead] : none;
  }
  void skip(std::size_t n = 1) { at_ += n; }
  // The text up to (not including) the next `stop` at this bracket depth; consumes `stop`.
  std::string until(char stop) {
    std::string text;
    int depth = 0;
    for (; !done(); ++at_) {
      const std::string& tok = t_[at_];
      if (depth == 0 && tok.size() == 1 && tok[0] == stop) {
        ++at_;
        break;
      }
      depth += (tok == "(" || tok == "[") ? 1 : (tok == ")" || tok == "]") ? -1 : 0;
      text += tok + " ";
    }
    return text;
  }
  // The product of the `[extent]`s that follow, or 0 when one is not a known constant.
  long long extents() {
    long long count = 1;
    while (peek() == "[") {
      skip();
      const auto value = constant_value(until(']'), names_);
      if (!value || *value <= 0) return 0;
      count *= *value;
    }
    return count;
  }
  // Bytes of the variables `name[..]..., name2[..]... ;` of `element` bytes each, or 0.
  long long variables(long long element) {
    long long total = 0;
    while (!done() && peek() != ";") {
      if (peek() == ",") skip();
      skip();  // the name
      const long long count = extents();
      if (count == 0) return 0;
      total += element * count;
      if (peek() != "," && peek() != ";") return 0;
    }
    skip();
    return total;
  }

 private:
  const std::vector<std::string>& t_;
  const Macros& names_;
  std::size_t at_ = 0;
};

// `struct NAME { TYPE member[..]; ... }`: its size, members summed and padded to 16 bytes.
void read_struct(Reader& r, StructSizes& structs) {
  const std::string name = r.peek();
  r.skip(2);  // the name and '{'
  long long bytes = 0;
  bool known = true;
  while (!r.done() && r.peek() != "}") {
    if (is_precision(r.peek())) r.skip();
    const long long element = type_bytes(r.peek(), structs);
    r.skip();
    const long long member = r.variables(element);
    known = known && element > 0 && member > 0;
    bytes += member;
  }
  r.skip();
  if (known) structs[name] = (bytes + 15) / 16 * 16;
}

}  // namespace

std::optional<long long> shared_memory_bytes(std::string_view source) {
  Preprocessed p = preprocess(without_comments(source));
  const auto all = tokens(p.lines);
  Reader r(all, p.macros);
  StructSizes structs;
  long long total = 0;
  while (!r.done()) {
    const std::string word = r.peek();
    if (word == "struct" && r.peek(2) == "{") {
      r.skip();
      read_struct(r, structs);
    } else if (word == "const" && (r.peek(1) == "int" || r.peek(1) == "uint") &&
               r.peek(3) == "=") {
      const std::string name = r.peek(2);
      r.skip(4);
      p.macros[name] = r.until(';');  // array sizes may use it as they use #defines
    } else if (word == "shared") {
      r.skip();
      if (is_precision(r.peek())) r.skip();
      const long long element = type_bytes(r.peek(), structs);
      if (element == 0) return std::nullopt;
      r.skip();
      const long long bytes = r.variables(element);
      if (bytes == 0) return std::nullopt;
      total += bytes;
    } else {
      r.skip();
    }
  }
  return total;
}

}  // namespace gpgpu::detail
