// Internal: GLSL source as tokens, for reading declarations where the driver cannot be asked
// (glsl_outputs.hpp: outputs on WebGL2; glsl_access.hpp: memory qualifiers). Comments become
// spaces and the lines the preprocessor's conditionals leave out are blank
// (glsl_preprocessor.hpp); macros are not expanded.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gpgpu::detail {

// Identifiers, numbers and single punctuation characters of the active lines of `source`.
std::vector<std::string> active_tokens(std::string_view source);

// Calls `statement(first, last)` for each global statement's tokens [first, last): those that
// end in ';' outside braces. A statement with a block ("buffer A { float a[]; };") runs from
// its first token to its ';', braces and all.
void for_each_global_statement(const std::vector<std::string>& tokens,
                               const std::function<void(std::size_t, std::size_t)>& statement);

}  // namespace gpgpu::detail
