#include "binding/run_checks.hpp"

#include <fmt/format.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/texture.hpp"

namespace gpgpu::detail {

void check_buffer_arg(const NamedArg& arg, const ContextState* owner, const std::string& label,
                      const std::string& what) {
  const Buffer* buffer = arg.value.buffer();
  if (buffer == nullptr) {
    throw ArgumentError(fmt::format(
        "{}: the Buffer for {} was destroyed after the argument was made", label, what));
  }
  if (!buffer->valid()) {
    throw ArgumentError(fmt::format("{}: the Buffer for {} is empty or released", label, what));
  }
  if (buffer->context_state().get() != owner) {
    throw ArgumentError(
        fmt::format("{}: the Buffer for {} belongs to another Context", label, what));
  }
}

void check_texture_arg(const NamedArg& arg, const ContextState* owner, const std::string& label,
                       const std::string& what) {
  const Texture* texture = arg.value.texture();
  if (texture == nullptr) {
    throw ArgumentError(fmt::format(
        "{}: the Texture for {} was destroyed after the argument was made", label, what));
  }
  if (!texture->valid()) {
    throw ArgumentError(fmt::format("{}: the Texture for {} is empty or released", label, what));
  }
  if (texture->context_state().get() != owner) {
    throw ArgumentError(
        fmt::format("{}: the Texture for {} belongs to another Context", label, what));
  }
}

Counts agree_on_count(const std::vector<std::pair<std::string, std::size_t>>& counts,
                      const char* separator, const char* equals) {
  Counts c;
  for (const auto& [name, n] : counts) {
    c.text += fmt::format("{}{}{}{}", c.text.empty() ? "" : separator, name, equals, n);
    if (c.common && *c.common != n) c.disagree = true;
    if (!c.common) c.common = n;
  }
  return c;
}

}  // namespace gpgpu::detail
