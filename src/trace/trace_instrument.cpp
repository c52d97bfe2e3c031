#include "trace/trace_instrument.hpp"

#include <cctype>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::detail {

namespace {

constexpr std::size_t npos = std::string_view::npos;

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

std::size_t skip_space(std::string_view s, std::size_t i) {
  while (i < s.size() && space(s[i])) ++i;
  return i;
}

// Just past the first `layout(... local_size ...) in;` of `s`, or npos. (Scanned by hand:
// std::regex consults the global locale, which crashed inside one Python process.)
std::size_t end_of_local_size_declaration(std::string_view s) {
  for (std::size_t at = s.find("layout"); at != npos; at = s.find("layout", at + 1)) {
    std::size_t i = skip_space(s, at + 6);
    if (i >= s.size() || s[i] != '(') continue;
    const std::size_t close = s.find(')', i);
    if (close == npos) return npos;
    if (s.substr(i, close - i).find("local_size") == npos) continue;
    i = skip_space(s, close + 1);
    if (s.substr(i, 2) != "in") continue;
    i = skip_space(s, i + 2);
    if (i < s.size() && s[i] == ';') return i + 1;
  }
  return npos;
}

// The position of the ']' that closes the '[' at `open`, or npos.
std::size_t closing_bracket(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '[' || c == '(') {
      ++depth;
    } else if (c == ']' || c == ')') {
      if (--depth == 0) return c == ']' ? i : npos;
    }
  }
  return npos;
}

constexpr int kind_read = 1, kind_write = 2, kind_read_write = 3;

// What the operator after a subscript (past member selections and further subscripts,
// `a[i].x = ...`, `m[i][j] += ...`) does to the element.
int kind_after(std::string_view s, std::size_t i) {
  i = skip_space(s, i);
  for (;;) {
    if (i < s.size() && s[i] == '.') {
      i = skip_space(s, i + 1);
      while (i < s.size() && ident_char(s[i])) ++i;
      i = skip_space(s, i);
    } else if (i < s.size() && s[i] == '[') {
      const std::size_t close = closing_bracket(s, i);
      if (close == npos) break;
      i = skip_space(s, close + 1);
    } else {
      break;
    }
  }
  const auto at = [&](std::string_view op) { return s.substr(i, op.size()) == op; };
  if (at("<<=") || at(">>=")) return kind_read_write;
  if (at("==") || at("<=") || at(">=") || at("!=")) return kind_read;
  for (const char* op : {"++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="}) {
    if (at(op)) return kind_read_write;
  }
  if (at("=")) return kind_write;
  return kind_read;
}

// Whether the text before the array name (at `start`) makes the access a read-modify-write:
// a prefix ++/--, or being the first argument of an atomic*() call.
bool read_write_before(std::string_view s, std::size_t start) {
  std::size_t i = start;
  const auto back_space = [&] {
    while (i > 0 && space(s[i - 1])) --i;
  };
  back_space();
  // Skip a block instance prefix: `blk.a[i]`.
  while (i > 0 && s[i - 1] == '.') {
    --i;
    back_space();
    while (i > 0 && ident_char(s[i - 1])) --i;
    back_space();
  }
  if (i >= 2 && (s.substr(i - 2, 2) == "++" || s.substr(i - 2, 2) == "--")) return true;
  if (i >= 1 && s[i - 1] == '(') {
    --i;
    back_space();
    const std::size_t end = i;
    while (i > 0 && ident_char(s[i - 1])) --i;
    return s.substr(i, end - i).rfind("atomic", 0) == 0;
  }
  return false;
}

class Rewriter {
 public:
  explicit Rewriter(std::string_view array) : array_(array) {}

  std::string rewrite(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 64);
    bool after_identifier = false;  // the previous token was a name (a type, a qualifier...)
    std::string previous;
    for (std::size_t i = 0; i < s.size();) {
      const char c = s[i];
      if (c == '/' && i + 1 < s.size() && (s[i + 1] == '/' || s[i + 1] == '*')) {
        const bool line = s[i + 1] == '/';
        std::size_t end = line ? s.find('\n', i) : s.find("*/", i + 2);
        end = end == npos ? s.size() : (line ? end : end + 2);
        out.append(s.substr(i, end - i));
        i = end;
        continue;
      }
      if (space(c)) {
        out += c;
        ++i;
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
        while (i < s.size() && (ident_char(s[i]) || s[i] == '.')) out += s[i++];
        after_identifier = false;
        continue;
      }
      if (!ident_start(c)) {
        out += c;
        ++i;
        after_identifier = false;
        continue;
      }
      std::size_t end = i;
      while (end < s.size() && ident_char(s[end])) ++end;
      const std::string_view word = s.substr(i, end - i);
      // A declaration (`float a[];`, `shared float a[N];`) has a type name before the
      // array's name; an expression has an operator or punctuation (or `return`).
      const bool declaration = after_identifier && previous != "return";
      const std::size_t open = skip_space(s, end);
      if (word == array_ && !declaration && open < s.size() && s[open] == '[') {
        const std::size_t close = closing_bracket(s, open);
        const std::string_view index = s.substr(open + 1, close == npos ? 0 : close - open - 1);
        if (close != npos && skip_space(index, 0) < index.size()) {
          int kind = kind_after(s, close + 1);
          if (read_write_before(s, i)) kind = kind_read_write;
          out.append(s.substr(i, open - i));
          out += fmt::format("[gpgpu_trace_touch({}, {}u)]", rewrite(index), kind);
          ++sites_;
          i = close + 1;
          after_identifier = false;
          continue;
        }
      }
      out.append(word);
      previous = std::string(word);
      after_identifier = true;
      i = end;
    }
    return out;
  }

  std::size_t sites() const { return sites_; }

 private:
  std::string_view array_;
  std::size_t sites_ = 0;
};

// The logging helpers, on one line so that the user's line numbers stay right.
std::string helpers(int binding) {
  return fmt::format(
      " layout(std430, binding = {0}) buffer {1} {{ uint gpgpuTraceCount; uint gpgpuTracePad; "
      "uvec2 gpgpuTraceEntries[]; }};"
      " void gpgpu_trace_log(uint e, uint k) {{"
      " uint g = (gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y) * gl_NumWorkGroups.x"
      " + gl_WorkGroupID.x;"
      " uint inv = g * (gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z)"
      " + gl_LocalInvocationIndex;"
      " uint slot = atomicAdd(gpgpuTraceCount, 1u);"
      " if (slot < uint(gpgpuTraceEntries.length()))"
      " gpgpuTraceEntries[slot] = uvec2(inv, (e & 0x3FFFFFFFu) | (k << 30)); }}"
      " uint gpgpu_trace_touch(uint e, uint k) {{ gpgpu_trace_log(e, k); return e; }}"
      " int gpgpu_trace_touch(int e, uint k) {{ gpgpu_trace_log(uint(e), k); return e; }}",
      binding, trace_log_block);
}

}  // namespace

InstrumentedSource instrument_array_accesses(std::string_view source, std::string_view array,
                                             int log_binding) {
  if (array.empty() || !ident_start(array.front())) {
    throw ArgumentError(fmt::format("trace: '{}' is not a GLSL array name", array));
  }
  Rewriter rewriter(array);
  InstrumentedSource result;
  result.source = rewriter.rewrite(source);
  result.sites = rewriter.sites();
  if (result.sites == 0) {
    throw ArgumentError(fmt::format(
        "trace: the kernel never subscripts '{}' (as {}[index]), so there is nothing to trace",
        array, array));
  }
  // gl_WorkGroupSize may only be used after the local size is declared: insert there.
  const std::size_t at = end_of_local_size_declaration(result.source);
  if (at == npos) {
    throw ArgumentError(
        "trace: the kernel has no `layout(local_size_x = ...) in;` declaration to place the "
        "tracing helpers after");
  }
  result.source.insert(at, helpers(log_binding));
  return result;
}

}  // namespace gpgpu::detail
