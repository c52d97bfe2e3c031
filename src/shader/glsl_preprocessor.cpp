#include "shader/glsl_preprocessor.hpp"

#include <cctype>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::detail {

namespace {

// An integer expression, evaluated by precedence climbing over its characters. In #if an
// unknown name is 0, as the C preprocessor has it; a strict Expression (array sizes) fails
// on one instead, and takes GLSL's int(...) and uint(...) conversions.
class Expression {
 public:
  Expression(std::string_view text, const Macros& macros, int depth = 0, bool strict = false)
      : text_(text), macros_(macros), depth_(depth), strict_(strict) {}

  long long evaluate() {
    const long long value = binary(0);
    skip_space();
    if (at_ < text_.size()) fail("unexpected text");
    return value;
  }

 private:
  [[noreturn]] void fail(const char* why) const {
    throw CompileError(fmt::format("#if {}: {} (gpgpu reads the outputs of WebGL2 shaders "
                                   "from their source)",
                                   text_, why),
                       "");
  }
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool take(std::string_view token) {
    skip_space();
    if (text_.substr(at_, token.size()) != token) return false;
    at_ += token.size();
    return true;
  }
  std::string identifier() {
    skip_space();
    const std::size_t start = at_;
    while (at_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_')) {
      ++at_;
    }
    return std::string(text_.substr(start, at_ - start));
  }
  long long unary() {
    if (take("!")) return !unary();
    if (take("-")) return -unary();
    if (take("+")) return unary();
    if (take("(")) {
      const long long v = binary(0);
      if (!take(")")) fail("a ')' is missing");
      return v;
    }
    skip_space();
    if (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) {
      std::size_t used = 0;
      const long long v = std::stoll(std::string(text_.substr(at_)), &used, 0);
      at_ += used;
      while (at_ < text_.size() && (text_[at_] == 'u' || text_[at_] == 'U')) ++at_;
      return v;
    }
    const std::string name = identifier();
    if (name.empty()) fail("an operand is missing");
    if (strict_ && (name == "int" || name == "uint") && take("(")) {
      const long long v = binary(0);
      if (!take(")")) fail("a ')' is missing");
      return v;
    }
    if (name == "defined") {
      const bool parenthesised = take("(");
      const std::string macro = identifier();
      if (parenthesised && !take(")")) fail("a ')' is missing");
      return macros_.count(macro) > 0;
    }
    const auto it = macros_.find(name);
    if (strict_ && (it == macros_.end() || it->second.empty())) fail("an unknown name");
    if (it == macros_.end() || it->second.empty()) return 0;  // as the C preprocessor does
    if (depth_ > 16) fail("macros nest too deep");
    return Expression(it->second, macros_, depth_ + 1, strict_).evaluate();
  }
  // Binary operators from lowest precedence (level 0) up.
  long long binary(int level) {
    static const std::vector<std::vector<std::string_view>> levels = {
        {"||"}, {"&&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"+", "-"}, {"*", "/", "%"}};
    if (level == static_cast<int>(levels.size())) return unary();
    long long value = binary(level + 1);
    for (;;) {
      std::string_view op;
      for (const auto candidate : levels[static_cast<std::size_t>(level)]) {
        if (take(candidate)) {
          op = candidate;
          break;
        }
      }
      if (op.empty()) return value;
      const long long rhs = binary(level + 1);
      if ((op == "/" || op == "%") && rhs == 0) fail("division by zero");
      value = op == "||"   ? (value || rhs)
              : op == "&&" ? (value && rhs)
              : op == "==" ? value == rhs
              : op == "!=" ? value != rhs
              : op == "<=" ? value <= rhs
              : op == ">=" ? value >= rhs
              : op == "<"  ? value < rhs
              : op == ">"  ? value > rhs
              : op == "+"  ? value + rhs
              : op == "-"  ? value - rhs
              : op == "*"  ? value * rhs
              : op == "/"  ? value / rhs
                           : value % rhs;
    }
  }

  std::string_view text_;
  const Macros& macros_;
  int depth_;
  bool strict_;
  std::size_t at_ = 0;
};

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// One level of #if nesting: whether its lines are compiled, and whether a branch was taken.
struct Branch {
  bool active;
  bool taken;
  bool parent_active;
};

}  // namespace

std::string active_lines(std::string_view source) {
  return preprocess(source).lines;
}

std::optional<long long> constant_value(std::string_view expression, const Macros& names) {
  try {
    return Expression(expression, names, 0, true).evaluate();
  } catch (const CompileError&) {
    return std::nullopt;
  }
}

Preprocessed preprocess(std::string_view source) {
  Macros macros;
  std::vector<Branch> stack;
  std::istringstream lines{std::string(source)};
  std::string line, out;
  const auto active = [&] { return stack.empty() || stack.back().active; };
  while (std::getline(lines, line)) {
    const std::string_view t = trimmed(line);
    if (t.empty() || t.front() != '#') {
      out += active() ? line : std::string();
      out += '\n';
      continue;
    }
    std::string_view rest = trimmed(t.substr(1));
    std::size_t word_end = 0;
    while (word_end < rest.size() && std::isalpha(static_cast<unsigned char>(rest[word_end]))) {
      ++word_end;
    }
    const std::string_view directive = rest.substr(0, word_end);
    const std::string_view argument = trimmed(rest.substr(word_end));
    const auto first_word = [&] {
      std::size_t n = 0;
      while (n < argument.size() &&
             (std::isalnum(static_cast<unsigned char>(argument[n])) || argument[n] == '_')) {
        ++n;
      }
      return std::pair{std::string(argument.substr(0, n)), trimmed(argument.substr(n))};
    };
    if (directive == "if" || directive == "ifdef" || directive == "ifndef") {
      bool value = false;
      if (active()) {
        value = directive == "if"      ? Expression(argument, macros).evaluate() != 0
                : directive == "ifdef" ? macros.count(first_word().first) > 0
                                       : macros.count(first_word().first) == 0;
      }
      stack.push_back({active() && value, value, active()});
    } else if (directive == "elif" || directive == "else") {
      if (stack.empty()) throw CompileError(fmt::format("#{} without #if", directive), "");
      Branch& b = stack.back();
      const bool value = !b.taken && b.parent_active &&
                         (directive == "else" || Expression(argument, macros).evaluate() != 0);
      b.active = value;
      b.taken = b.taken || value;
    } else if (directive == "endif") {
      if (stack.empty()) throw CompileError("#endif without #if", "");
      stack.pop_back();
    } else if (active() && directive == "define") {
      auto [name, value] = first_word();
      if (!value.empty() && value.front() == '(') value = {};  // a function-like macro
      macros[name] = std::string(value);
    } else if (active() && directive == "undef") {
      macros.erase(first_word().first);
    }
    out += '\n';
  }
  if (!stack.empty()) throw CompileError("#if without #endif", "");
  return {std::move(out), std::move(macros)};
}

}  // namespace gpgpu::detail
