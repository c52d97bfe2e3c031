// Palettes, the map projector, map pictures with graticule and colour bar, PNG output.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "earth/canvas.hpp"
#include "earth/render_common.hpp"
#include "gpgpu/earth/diagnostics.hpp"
#include "gpgpu/earth/render.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth {

namespace {

constexpr double pi = 3.14159265358979323846;

// Control points of each palette, equally spaced in t.
const std::vector<std::array<double, 3>>& stops(Palette p) {
  static const std::vector<std::array<double, 3>> height{
      {0.13, 0.05, 0.33}, {0.17, 0.24, 0.55}, {0.13, 0.42, 0.56}, {0.12, 0.59, 0.55},
      {0.27, 0.74, 0.43}, {0.64, 0.84, 0.22}, {0.99, 0.91, 0.14}};
  static const std::vector<std::array<double, 3>> speed{{0.0, 0.0, 0.02},   {0.23, 0.06, 0.44},
                                                        {0.55, 0.16, 0.51}, {0.87, 0.32, 0.38},
                                                        {0.99, 0.62, 0.36}, {0.99, 0.99, 0.75}};
  static const std::vector<std::array<double, 3>> diverging{
      {0.02, 0.19, 0.38}, {0.26, 0.58, 0.77}, {0.82, 0.90, 0.94}, {0.97, 0.97, 0.97},
      {0.99, 0.86, 0.78}, {0.84, 0.38, 0.30}, {0.40, 0.0, 0.12}};
  switch (p) {
    case Palette::Height:
      return height;
    case Palette::Speed:
      return speed;
    default:
      return diverging;
  }
}

std::string tick_label(double v, double span) {
  if (v == 0) return "0";
  const double mag = std::abs(v);
  if (mag >= 1e5 || mag < 1e-2 || span < 1e-2) return fmt::format("{:.2e}", v);
  if (span >= 100) return fmt::format("{:.0f}", v);
  if (span >= 1) return fmt::format("{:.1f}", v);
  return fmt::format("{:.3f}", v);
}

constexpr detail::Rgb background{250, 250, 250}, ink{20, 20, 20};

}  // namespace

std::uint32_t palette_colour(Palette palette, double t) {
  if (!std::isfinite(t)) return 0x808080;
  const auto& s = stops(palette);
  t = std::clamp(t, 0.0, 1.0) * static_cast<double>(s.size() - 1);
  const auto k = std::min(static_cast<std::size_t>(t), s.size() - 2);
  const double f = t - static_cast<double>(k);
  std::uint32_t out = 0;
  for (int c = 0; c < 3; ++c) {
    const double v = s[k][c] * (1 - f) + s[k + 1][c] * f;
    out |= static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255)) << (16 - 8 * c);
  }
  return out;
}

FieldStyle style_for(std::span<const double> values, std::string title, std::string units,
                     Palette palette) {
  double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (lo > hi) lo = 0, hi = 1;
  if (palette == Palette::Diverging) {
    const double m = std::max(std::abs(lo), std::abs(hi));
    lo = -m, hi = m;
  }
  if (hi - lo <= 0) hi = lo + 1;
  return {std::move(title), std::move(units), palette, lo, hi};
}

MapProjector::MapProjector(const Grid& grid, int width, int height)
    : grid_(&grid), width_(width), height_(height) {
  if (width < 8 || height < 4 || width > 16384 || height > 8192) {
    throw ArgumentError(
        fmt::format("earth map: {} x {} pixels is outside 8..16384 x 4..8192", width, height));
  }
  const auto pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  cells_.resize(3 * pixels);
  weights_.resize(3 * pixels);
  Locator locator(grid);
  for (int y = 0; y < height; ++y) {
    // Serpentine order: each query starts next to the previous answer.
    for (int s = 0; s < width; ++s) {
      const int x = (y % 2 == 0) ? s : width - 1 - s;
      const double lat = pi / 2 - (y + 0.5) * pi / height, lon = -pi + (x + 0.5) * 2 * pi / width;
      const auto hit = locator.locate(from_lat_lon(lat, lon));
      const std::size_t at = 3 * (static_cast<std::size_t>(y) * width + x);
      for (int k = 0; k < 3; ++k) {
        cells_[at + k] = static_cast<std::uint32_t>(hit.cells[k]);
        weights_[at + k] = static_cast<float>(hit.weights[k]);
      }
    }
  }
}

std::vector<float> MapProjector::sample(std::span<const double> values) const {
  if (values.size() != grid_->cell_count()) {
    throw SizeMismatchError(fmt::format("earth map: {} values for a grid of {} cells",
                                        values.size(), grid_->cell_count()));
  }
  std::vector<float> out(cells_.size() / 3);
  for (std::size_t p = 0; p < out.size(); ++p) {
    double v = 0;
    for (int k = 0; k < 3; ++k) v += weights_[3 * p + k] * values[cells_[3 * p + k]];
    out[p] = static_cast<float>(v);
  }
  return out;
}

namespace detail {

void draw_colour_bar(Canvas& c, int x, int y, int w, const FieldStyle& style) {
  constexpr int bar_h = 16;
  for (int i = 0; i < w; ++i) {
    const std::uint32_t col = palette_colour(style.palette, (i + 0.5) / w);
    c.fill(x + i, y, x + i + 1, y + bar_h,
           {static_cast<std::uint8_t>(col >> 16), static_cast<std::uint8_t>(col >> 8),
            static_cast<std::uint8_t>(col)});
  }
  constexpr int ticks = 5;
  const double span = style.max - style.min;
  for (int t = 0; t < ticks; ++t) {
    const double f = static_cast<double>(t) / (ticks - 1);
    const int tx = x + static_cast<int>(std::lround(f * (w - 1)));
    c.fill(tx, y + bar_h, tx + 1, y + bar_h + 5, ink);
    const std::string label = tick_label(style.min + f * span, span);
    const int lw = Canvas::text_width(label, 2);
    c.text(std::clamp(tx - lw / 2, 0, c.width() - lw), y + bar_h + 8, label, ink, 2);
  }
  if (!style.units.empty()) c.text(x + w + 10, y + 2, style.units, ink, 2);
}

}  // namespace detail

Image render_map(const MapProjector& map, std::span<const double> values, const FieldStyle& style) {
  const auto field = map.sample(values);
  const int w = map.width(), h = map.height(), margin = 16, top = 40, bottom = 64;
  detail::Canvas c(w + 2 * margin + 80, h + top + bottom, background);
  c.text(margin, 12, style.title, ink, 2);
  const double span = style.max - style.min;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const std::uint32_t col = palette_colour(
          style.palette, (field[static_cast<std::size_t>(y) * w + x] - style.min) / span);
      c.set(margin + x, top + y,
            {static_cast<std::uint8_t>(col >> 16), static_cast<std::uint8_t>(col >> 8),
             static_cast<std::uint8_t>(col)});
    }
  }
  // Graticule every 30 degrees; the equator and the prime meridian stronger.
  for (int k = 0; k <= 12; ++k) {
    const double x = margin + k * w / 12.0 - 0.5;
    c.line(x, top, x, top + h - 1, {255, 255, 255}, k == 6 ? 0.7 : 0.35);
  }
  for (int k = 0; k <= 6; ++k) {
    const double y = top + k * h / 6.0 - 0.5;
    c.line(margin, y, margin + w - 1, y, {255, 255, 255}, k == 3 ? 0.7 : 0.35);
  }
  detail::draw_colour_bar(c, margin, top + h + 8, w, style);
  return {c.width(), c.height(), c.pixels()};
}

void write_png(const std::filesystem::path& path, const Image& image) {
  detail::Canvas(image.width, image.height, image.rgb).write_png(path);
}

void write_map_png(const std::filesystem::path& path, const MapProjector& map,
                   std::span<const double> values, const FieldStyle& style) {
  write_png(path, render_map(map, values, style));
}

}  // namespace gpgpu::earth
