// Drawing shared by the earth pictures (render_map.cpp, render_globe.cpp).
#pragma once

#include "earth/canvas.hpp"
#include "gpgpu/earth/render.hpp"

namespace gpgpu::earth::detail {

// A w-pixel colour bar at (x, y) with five tick values and the units; 48 pixels tall.
void draw_colour_bar(Canvas& canvas, int x, int y, int w, const FieldStyle& style);

}  // namespace gpgpu::earth::detail
