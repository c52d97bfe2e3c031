// Internal: the part of GLSL's preprocessor that decides which lines are compiled, for reading
// declarations from source where the driver cannot be asked (glsl_outputs.hpp, WebGL2).
// #define / #undef of object-like macros, #if / #ifdef / #ifndef / #elif / #else / #endif with
// integer expressions (defined(X), macro values, ! - * / % + - < > <= >= == != && ||,
// parentheses). Macros are not expanded in the code itself.
#pragma once

#include <string>
#include <string_view>

namespace gpgpu::detail {

// The source with every directive and every line a conditional leaves out blanked (line
// numbers stay). Throws CompileError for a conditional it cannot evaluate or unbalanced ones.
std::string active_lines(std::string_view source);

}  // namespace gpgpu::detail
