// An RGB raster with the few drawing operations the earth pictures need: rectangles, blended
// pixels, lines, 5x7 bitmap text, and writing PNG through libpng (to a temporary, renamed).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gpgpu::earth::detail {

using Rgb = std::array<std::uint8_t, 3>;

class Canvas {
 public:
  Canvas(int width, int height, Rgb background);
  // A canvas holding `rgb` (width x height x 3 bytes, row-major).
  Canvas(int width, int height, std::vector<std::uint8_t> rgb);
  int width() const { return width_; }
  int height() const { return height_; }

  void set(int x, int y, Rgb c);
  // Mixes c into the pixel with weight alpha in [0, 1].
  void blend(int x, int y, Rgb c, double alpha);
  void fill(int x0, int y0, int x1, int y1, Rgb c);  // [x0, x1) x [y0, y1), clipped
  void line(double x0, double y0, double x1, double y1, Rgb c, double alpha = 1);
  // Text at `scale` pixels per font pixel; returns its width in pixels.
  int text(int x, int y, const std::string& s, Rgb c, int scale = 2);
  static int text_width(const std::string& s, int scale = 2);
  // Copies another canvas (or an RGBA8 image) with its top-left corner at (x, y).
  void paste(const Canvas& other, int x, int y);
  void paste_rgba(const std::vector<std::uint32_t>& rgba, int w, int h, int x, int y);

  const std::vector<std::uint8_t>& pixels() const { return pixels_; }
  // Writes an 8-bit RGB PNG: to `path`.tmp first, then renamed, so no half-written file is
  // ever left at `path`. Throws gpgpu::Error with the path when it cannot.
  void write_png(const std::filesystem::path& path) const;

 private:
  int width_, height_;
  std::vector<std::uint8_t> pixels_;
};

}  // namespace gpgpu::earth::detail
