// Internal: a 5 x 7 pixel font, enough to caption access-pattern pictures without a font
// library. Letters are drawn in upper case; characters it lacks are drawn as '?'.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace gpgpu::detail {

// Seven rows of five pixels, the leftmost pixel in bit 4.
using Glyph = std::array<std::uint8_t, 7>;

const Glyph& glyph_for(char c);

inline constexpr int glyph_width = 5, glyph_height = 7;

}  // namespace gpgpu::detail
