// Canvas: drawing, a 5x7 font, and PNG output.
#include "earth/canvas.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <memory>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <png.h>

#include "gpgpu/error.hpp"

namespace gpgpu::earth::detail {

namespace {

using Glyph = std::array<std::uint8_t, 7>;  // rows top to bottom, bit 4 = leftmost column

// The classic 5x7 dot-matrix shapes for what the pictures print: capitals (lower case is
// drawn as upper case), digits and a little punctuation.
const Glyph& glyph(char c) {
  static const std::pair<char, Glyph> table[] = {
      {'A', {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}},
      {'B', {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E}},
      {'C', {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E}},
      {'D', {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C}},
      {'E', {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F}},
      {'F', {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10}},
      {'G', {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F}},
      {'H', {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}},
      {'I', {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}},
      {'J', {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C}},
      {'K', {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}},
      {'L', {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F}},
      {'M', {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11}},
      {'N', {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11}},
      {'O', {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}},
      {'P', {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10}},
      {'Q', {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D}},
      {'R', {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11}},
      {'S', {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E}},
      {'T', {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}},
      {'U', {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}},
      {'V', {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04}},
      {'W', {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A}},
      {'X', {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11}},
      {'Y', {0x11, 0x11, 0x0A, 0x04, 0x04, 0x04, 0x04}},
      {'Z', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F}},
      {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}},
      {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
      {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}},
      {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
      {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}},
      {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
      {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}},
      {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
      {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}},
      {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
      {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}},
      {',', {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08}},
      {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}},
      {'+', {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00}},
      {':', {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00}},
      {'/', {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00}},
      {'=', {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00}},
      {'(', {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}},
      {')', {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}},
      {'%', {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03}},
      {'^', {0x04, 0x0A, 0x11, 0x00, 0x00, 0x00, 0x00}},
      {'*', {0x00, 0x04, 0x15, 0x0E, 0x15, 0x04, 0x00}},
      {'_', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F}},
      {'\'', {0x04, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00}},
      {'[', {0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E}},
      {']', {0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E}},
      {'<', {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02}},
      {'>', {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08}},
  };
  static const Glyph blank{};
  const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const auto& [ch, g] : table) {
    if (ch == u) return g;
  }
  return blank;
}

constexpr int glyph_w = 5, glyph_h = 7;

struct PngWriteState {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~PngWriteState() { png_destroy_write_struct(&png, &info); }
};

}  // namespace

Canvas::Canvas(int width, int height, Rgb background) : width_(width), height_(height) {
  if (width <= 0 || height <= 0 || width > 16384 || height > 16384) {
    throw ArgumentError(
        fmt::format("earth picture: {} x {} pixels is outside 1..16384", width, height));
  }
  pixels_.resize(static_cast<std::size_t>(width) * height * 3);
  fill(0, 0, width, height, background);
}

Canvas::Canvas(int width, int height, std::vector<std::uint8_t> rgb)
    : width_(width), height_(height), pixels_(std::move(rgb)) {
  if (width <= 0 || height <= 0 || pixels_.size() != static_cast<std::size_t>(width) * height * 3) {
    throw ArgumentError(fmt::format("earth picture: {} bytes do not make a {} x {} RGB image",
                                    pixels_.size(), width, height));
  }
}

void Canvas::set(int x, int y, Rgb c) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  auto* p = &pixels_[(static_cast<std::size_t>(y) * width_ + x) * 3];
  p[0] = c[0], p[1] = c[1], p[2] = c[2];
}

void Canvas::blend(int x, int y, Rgb c, double alpha) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  alpha = std::clamp(alpha, 0.0, 1.0);
  auto* p = &pixels_[(static_cast<std::size_t>(y) * width_ + x) * 3];
  for (int k = 0; k < 3; ++k) {
    p[k] = static_cast<std::uint8_t>(std::lround(p[k] * (1 - alpha) + c[k] * alpha));
  }
}

void Canvas::fill(int x0, int y0, int x1, int y1, Rgb c) {
  x0 = std::clamp(x0, 0, width_), x1 = std::clamp(x1, 0, width_);
  y0 = std::clamp(y0, 0, height_), y1 = std::clamp(y1, 0, height_);
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) set(x, y, c);
  }
}

void Canvas::line(double x0, double y0, double x1, double y1, Rgb c, double alpha) {
  const double len = std::max(std::abs(x1 - x0), std::abs(y1 - y0));
  const int steps = std::max(1, static_cast<int>(std::ceil(len)));
  for (int s = 0; s <= steps; ++s) {
    const double t = static_cast<double>(s) / steps;
    blend(static_cast<int>(std::lround(x0 + t * (x1 - x0))),
          static_cast<int>(std::lround(y0 + t * (y1 - y0))), c, alpha);
  }
}

int Canvas::text_width(const std::string& s, int scale) {
  return static_cast<int>(s.size()) * (glyph_w + 1) * scale;
}

int Canvas::text(int x, int y, const std::string& s, Rgb c, int scale) {
  int at = x;
  for (const char ch : s) {
    const Glyph& g = glyph(ch);
    for (int row = 0; row < glyph_h; ++row) {
      for (int col = 0; col < glyph_w; ++col) {
        if ((g[static_cast<std::size_t>(row)] >> (glyph_w - 1 - col)) & 1) {
          fill(at + col * scale, y + row * scale, at + (col + 1) * scale, y + (row + 1) * scale, c);
        }
      }
    }
    at += (glyph_w + 1) * scale;
  }
  return at - x;
}

void Canvas::paste(const Canvas& other, int x, int y) {
  for (int j = 0; j < other.height_; ++j) {
    for (int i = 0; i < other.width_; ++i) {
      const auto* p = &other.pixels_[(static_cast<std::size_t>(j) * other.width_ + i) * 3];
      set(x + i, y + j, {p[0], p[1], p[2]});
    }
  }
}

void Canvas::paste_rgba(const std::vector<std::uint32_t>& rgba, int w, int h, int x, int y) {
  for (int j = 0; j < h; ++j) {
    for (int i = 0; i < w; ++i) {
      const std::uint32_t v = rgba[static_cast<std::size_t>(j) * w + i];
      set(x + i, y + j,
          {static_cast<std::uint8_t>(v & 0xFF), static_cast<std::uint8_t>((v >> 8) & 0xFF),
           static_cast<std::uint8_t>((v >> 16) & 0xFF)});
    }
  }
}

void Canvas::write_png(const std::filesystem::path& path) const {
  const std::filesystem::path temporary = path.string() + ".tmp";
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(temporary.c_str(), "wb"),
                                                       &std::fclose);
  if (!file)
    throw Error(fmt::format("earth picture: cannot open {} for writing", temporary.string()));
  {
    PngWriteState s;
    s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    if (s.png != nullptr) s.info = png_create_info_struct(s.png);
    if (s.png == nullptr || s.info == nullptr) throw Error("earth picture: libpng could not start");
    if (setjmp(png_jmpbuf(s.png))) {
      std::filesystem::remove(temporary);
      throw Error(fmt::format("earth picture: libpng failed writing {}", path.string()));
    }
    png_init_io(s.png, file.get());
    png_set_IHDR(s.png, s.info, static_cast<png_uint_32>(width_), static_cast<png_uint_32>(height_),
                 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(s.png, s.info);
    for (int y = 0; y < height_; ++y) {
      png_write_row(s.png, &pixels_[static_cast<std::size_t>(y) * width_ * 3]);
    }
    png_write_end(s.png, nullptr);
  }
  if (std::fclose(file.release()) != 0) {
    std::filesystem::remove(temporary);
    throw Error(fmt::format("earth picture: could not finish writing {}", temporary.string()));
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary);
    throw Error(fmt::format("earth picture: cannot rename {} to {}: {}", temporary.string(),
                            path.string(), ec.message()));
  }
}

}  // namespace gpgpu::earth::detail
