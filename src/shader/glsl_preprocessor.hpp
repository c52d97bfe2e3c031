// Internal: the part of GLSL's preprocessor that decides which lines are compiled, for reading
// declarations from source where the driver cannot be asked (glsl_outputs.hpp, WebGL2).
// #define / #undef of object-like macros, #if / #ifdef / #ifndef / #elif / #else / #endif with
// integer expressions (defined(X), macro values, ! - * / % + - < > <= >= == != && ||,
// parentheses). Macros are not expanded in the code itself.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpgpu::detail {

// Object-like macros by name, as #define left them (their text, unexpanded).
using Macros = std::map<std::string, std::string, std::less<>>;

struct Preprocessed {
  std::string lines;  // as active_lines returns them
  Macros macros;      // the macros defined at the end of the source
};
Preprocessed preprocess(std::string_view source);

// The value of an integer constant expression over `names` (macros, or GLSL constants
// collected as text): literals, names, int(...) and uint(...), the #if operators. nullopt
// when a name is unknown or the text is not such an expression.
std::optional<long long> constant_value(std::string_view expression, const Macros& names);

// The source with every directive and every line a conditional leaves out blanked (line
// numbers stay). Throws CompileError for a conditional it cannot evaluate or unbalanced ones.
std::string active_lines(std::string_view source);

}  // namespace gpgpu::detail
