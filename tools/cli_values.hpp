// Strict parsing of the numbers given on the command line (--set values): decimal, or
// hexadecimal with an explicit 0x; range-checked for the declared GLSL type; never a silent
// wrap, sign change or change of base ("010" is refused rather than read as octal 8).
#pragma once

#include <cstdint>
#include <string>

namespace gpgpu::cli {

// `what` names the value in messages ("--set k"). Throw gpgpu::ArgumentError saying what
// was expected and what was given.
std::int32_t parse_int32(const std::string& text, const std::string& what);
std::uint32_t parse_uint32(const std::string& text, const std::string& what);
float parse_float32(const std::string& text, const std::string& what);

}  // namespace gpgpu::cli
