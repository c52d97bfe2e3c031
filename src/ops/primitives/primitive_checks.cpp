#include "primitive_checks.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::primitives {

void check_buffer(const Context& ctx, const Buffer& buffer, const char* function,
                  const char* name) {
  if (!buffer.valid()) {
    throw ArgumentError(
        fmt::format("gpgpu::{}: '{}' is an empty or released Buffer", function, name));
  }
  if (buffer.context_state() != ctx.state()) {
    throw ArgumentError(fmt::format("gpgpu::{}: '{}' belongs to another Context than the one given",
                                    function, name));
  }
}

void check_type(const Buffer& buffer, ElementType expected, const char* function,
                const char* name) {
  if (buffer.element_type() != expected) {
    throw TypeMismatchError(fmt::format("gpgpu::{}: '{}' holds {} but {} was expected", function,
                                        name, to_string(buffer.element_type()),
                                        to_string(expected)));
  }
}

void check_components(int components, const char* function) {
  if (components < 1 || components > 4) {
    throw ArgumentError(
        fmt::format("gpgpu::{}: components must be 1 (scalars) or 2..4 (vectors), not {}", function,
                    components));
  }
}

ScalarRange resolve_range(const Buffer& buffer, Range range, int components, const char* function,
                          const char* name) {
  const auto c = static_cast<std::size_t>(components);
  if (buffer.size() % c != 0) {
    throw SizeMismatchError(fmt::format(
        "gpgpu::{}: '{}' holds {} scalars, which is not a whole number of {}-component elements",
        function, name, buffer.size(), components));
  }
  const std::size_t elements = buffer.size() / c;
  if (range.first > elements) {
    throw SizeMismatchError(
        fmt::format("gpgpu::{}: range.first = {} is past the end of '{}' ({} elements)", function,
                    range.first, name, elements));
  }
  const std::size_t count = range.count == whole ? elements - range.first : range.count;
  if (count > elements - range.first) {
    throw SizeMismatchError(fmt::format("gpgpu::{}: range [{}, {}) is outside '{}' ({} elements)",
                                        function, range.first, range.first + count, name,
                                        elements));
  }
  return {range.first * c, count * c, count};
}

void check_room(const Buffer& buffer, std::size_t offset, std::size_t count, const char* function,
                const char* name) {
  if (offset > buffer.size() || count > buffer.size() - offset) {
    throw SizeMismatchError(
        fmt::format("gpgpu::{}: '{}' needs room for {} scalars from offset {} but holds {}",
                    function, name, count, offset, buffer.size()));
  }
}

void check_index_range(std::size_t end, const char* function, const char* name) {
  if (end >= 0xFFFFFFFFull) {
    throw LimitError(
        fmt::format("gpgpu::{}: '{}' reaches element {}; indices are 32-bit (< 2^32 - 1)", function,
                    name, end));
  }
}

}  // namespace gpgpu::primitives
