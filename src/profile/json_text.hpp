// Internal: the two pieces of JSON the profiler and the access tracer write by hand (the
// library does not otherwise need a JSON dependency for them).
#pragma once

#include <string>
#include <string_view>

namespace gpgpu::detail {

// A quoted JSON string with ", \ and control characters escaped.
std::string json_string(std::string_view text);
// A finite number in the shortest form that reads back exactly; null for NaN and infinities.
std::string json_number(double value);

}  // namespace gpgpu::detail
