// Internal: the checks every kernel path makes before it touches the GPU, apart from any GL
// call (as sokol_gfx validates bindings apart from its backends): device objects belong to
// the kernel's Context and hold something, and arrays that set a run's size agree on it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpgpu/arg.hpp"

namespace gpgpu::detail {

struct ContextState;

// Throws ArgumentError when the Buffer `arg` holds is empty or released, or made by another
// Context than `owner`. `what` names the variable in the message ("output 'C'").
void check_buffer_arg(const NamedArg& arg, const ContextState* owner, const std::string& label,
                      const std::string& what);
// The same for a Texture.
void check_texture_arg(const NamedArg& arg, const ContextState* owner, const std::string& label,
                       const std::string& what);

// The element counts of the arrays that decide a run's size, by name.
struct Counts {
  std::optional<std::size_t> common;  // the count they agree on, if any array was given
  bool disagree = false;
  std::string text;  // "a=4, b=5", for messages
};
// `separator` goes between entries (", " or " ").
Counts agree_on_count(const std::vector<std::pair<std::string, std::size_t>>& counts,
                      const char* separator = ", ", const char* equals = "=");

}  // namespace gpgpu::detail
