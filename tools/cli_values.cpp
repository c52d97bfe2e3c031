#include "cli_values.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::cli {

namespace {

struct Magnitude {
  bool negative = false;
  std::uint64_t value = 0;
};

// [+|-] digits (no leading zero) or [+|-] 0x hexdigits, within 64 bits.
Magnitude parse_magnitude(const std::string& text, const std::string& what, const char* type,
                          bool sign_allowed) {
  std::string_view s = text;
  Magnitude m;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    m.negative = s.front() == '-';
    if (m.negative && !sign_allowed) {
      throw ArgumentError(fmt::format("{}: '{}' is negative, but it is declared {} (0 to {})", what,
                                      text, type, std::numeric_limits<std::uint32_t>::max()));
    }
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() > 1 && s[0] == '0') {
    throw ArgumentError(fmt::format(
        "{}: '{}' has a leading zero, which some tools read as octal; write it without (or "
        "as hexadecimal with 0x)",
        what, text));
  }
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), m.value, base);
  if (s.empty() || end != s.data() + s.size() || error == std::errc::invalid_argument) {
    throw ArgumentError(
        fmt::format("{}: '{}' is not {} {} value (decimal digits, or 0x and hex "
                    "digits)",
                    what, text, type[0] == 'i' ? "an" : "a", type));
  }
  if (error == std::errc::result_out_of_range) m.value = std::numeric_limits<std::uint64_t>::max();
  return m;
}

}  // namespace

std::int32_t parse_int32(const std::string& text, const std::string& what) {
  const Magnitude m = parse_magnitude(text, what, "int", true);
  const std::uint64_t limit = m.negative ? 2147483648ull : 2147483647ull;
  if (m.value > limit) {
    throw ArgumentError(fmt::format("{}: '{}' is out of range for an int ({} to {})", what, text,
                                    std::numeric_limits<std::int32_t>::min(),
                                    std::numeric_limits<std::int32_t>::max()));
  }
  return m.negative ? static_cast<std::int32_t>(-static_cast<std::int64_t>(m.value))
                    : static_cast<std::int32_t>(m.value);
}

std::uint32_t parse_uint32(const std::string& text, const std::string& what) {
  const Magnitude m = parse_magnitude(text, what, "uint", false);
  if (m.value > std::numeric_limits<std::uint32_t>::max()) {
    throw ArgumentError(fmt::format("{}: '{}' is out of range for a uint (0 to {})", what, text,
                                    std::numeric_limits<std::uint32_t>::max()));
  }
  return static_cast<std::uint32_t>(m.value);
}

float parse_float32(const std::string& text, const std::string& what) {
  std::string_view s = text;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  float value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || end != s.data() + s.size() || error == std::errc::invalid_argument) {
    throw ArgumentError(fmt::format("{}: '{}' is not a float value", what, text));
  }
  if (error == std::errc::result_out_of_range) {
    throw ArgumentError(
        fmt::format("{}: '{}' is out of range for a float (magnitudes from about "
                    "1.2e-38 to 3.4e38, or 0)",
                    what, text));
  }
  if (!std::isfinite(value)) {
    throw ArgumentError(fmt::format("{}: '{}' is not a finite float", what, text));
  }
  return value;
}

}  // namespace gpgpu::cli
