// write_access_png: the access-pattern picture (address vs invocation), through libpng.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#ifdef GPGPU_HAVE_PNG
#include <png.h>
#endif

#include "gpgpu/access_trace.hpp"
#include "gpgpu/error.hpp"
#include "trace/trace_font.hpp"

namespace gpgpu {

namespace {

using Rgb = std::array<std::uint8_t, 3>;

constexpr Rgb background{18, 18, 22}, panel_colour{38, 38, 44}, group_line{72, 72, 80},
    text_colour{225, 225, 225};

// One hue per warp of a work group, in order, repeating after eight warps.
constexpr std::array<Rgb, 8> warp_colours{{{235, 85, 80},
                                           {245, 165, 45},
                                           {225, 220, 60},
                                           {95, 205, 95},
                                           {65, 200, 205},
                                           {85, 135, 245},
                                           {175, 105, 235},
                                           {235, 105, 195}}};

class Canvas {
 public:
  Canvas(int width, int height)
      : width_(width), height_(height), pixels_(static_cast<std::size_t>(width) * height * 3) {
    fill(0, 0, width, height, background);
  }
  void fill(int x0, int y0, int x1, int y1, Rgb c) {
    x0 = std::clamp(x0, 0, width_);
    x1 = std::clamp(x1, 0, width_);
    y0 = std::clamp(y0, 0, height_);
    y1 = std::clamp(y1, 0, height_);
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) {
        auto* p = &pixels_[(static_cast<std::size_t>(y) * width_ + x) * 3];
        p[0] = c[0];
        p[1] = c[1];
        p[2] = c[2];
      }
    }
  }
  // Text at twice the font's size; returns the height used.
  int text(int x, int y, const std::string& s, Rgb c) {
    constexpr int scale = 2;
    for (const char ch : s) {
      const auto& g = detail::glyph_for(ch);
      for (int row = 0; row < detail::glyph_height; ++row) {
        for (int col = 0; col < detail::glyph_width; ++col) {
          if ((g[static_cast<std::size_t>(row)] >> (detail::glyph_width - 1 - col)) & 1) {
            fill(x + col * scale, y + row * scale, x + (col + 1) * scale, y + (row + 1) * scale, c);
          }
        }
      }
      x += (detail::glyph_width + 1) * scale;
    }
    return detail::glyph_height * scale;
  }
  int width() const { return width_; }
  int height() const { return height_; }
  const std::vector<std::uint8_t>& pixels() const { return pixels_; }

 private:
  int width_, height_;
  std::vector<std::uint8_t> pixels_;
};

constexpr int margin = 10, line_height = 20;

struct Window {
  std::size_t first, count;  // invocations drawn
  std::uint32_t low, high;   // elements drawn (those the window's invocations touch)
};

void draw_panel(Canvas& canvas, const AccessTrace& trace, AccessKind kind, int top,
                const AccessPictureOptions& o, const Window& win) {
  const std::size_t first = win.first, count = win.count;
  const double elements = static_cast<double>(win.high - win.low) + 1;
  const int left = margin, w = o.width, h = o.panel_height;
  const auto stats = trace.coalescing(kind, o.warp_size);
  const char* what = kind == AccessKind::Read ? "READS" : "WRITES";
  canvas.text(left, top,
              fmt::format("{} OF {} (WHOLE RUN): {:.1f} SECTORS PER WARP REQUEST, IDEAL {:.1f} = "
                          "{:.0f}% EFFICIENT",
                          what, trace.buffer, stats.sectors_per_request,
                          stats.ideal_sectors_per_request, 100 * stats.efficiency()),
              text_colour);
  top += line_height;
  canvas.fill(left, top, left + w, top + h, panel_colour);
  const double sx = static_cast<double>(w) / static_cast<double>(count);
  const double sy = static_cast<double>(h) / elements;
  // Work-group boundaries, where they are far enough apart to be seen.
  const std::size_t group = std::max<std::size_t>(trace.group_size, 1);
  if (sx * static_cast<double>(group) >= 6) {
    for (std::size_t g = (first + group - 1) / group * group; g < first + count; g += group) {
      const int x = left + static_cast<int>(std::floor(static_cast<double>(g - first) * sx));
      canvas.fill(x, top, x + 1, top + h, group_line);
    }
  }
  const auto warp = static_cast<std::size_t>(std::max(o.warp_size, 1));
  for (const auto& a : trace.accesses) {
    const bool wanted =
        kind == AccessKind::Read ? a.kind != AccessKind::Write : a.kind != AccessKind::Read;
    if (!wanted || a.invocation < first || a.invocation >= first + count) continue;
    const double ix = static_cast<double>(a.invocation - first);
    const int x0 = static_cast<int>(std::floor(ix * sx));
    const int x1 = std::max(x0 + 1, static_cast<int>(std::floor((ix + 1) * sx)));
    if (a.element < win.low || a.element > win.high) continue;
    const double e = static_cast<double>(a.element - win.low);
    const int y0 = static_cast<int>(std::floor(e * sy));
    const int y1 = std::max(y0 + 1, static_cast<int>(std::floor((e + 1) * sy)));
    const std::size_t g = a.invocation / group, lane = a.invocation % group;
    Rgb c = warp_colours[(lane / warp) % warp_colours.size()];
    if (g % 2 == 1) {
      for (auto& v : c) v = static_cast<std::uint8_t>(v * 0.6);
    }
    canvas.fill(left + x0, top + y0, left + std::min(x1, w), top + std::min(y1, h), c);
  }
}

}  // namespace

bool access_png_supported() {
#ifdef GPGPU_HAVE_PNG
  return true;
#else
  return false;
#endif
}

void write_access_png(const AccessTrace& trace, const std::filesystem::path& path,
                      const AccessPictureOptions& o) {
  if (o.width < 64 || o.panel_height < 32) {
    throw ArgumentError(fmt::format(
        "access picture: {} x {} pixels is too small (at least 64 x 32)", o.width, o.panel_height));
  }
  if (o.width > 16384 || o.panel_height > 16384) {
    throw ArgumentError(fmt::format("access picture: {} x {} pixels is too large (at most 16384)",
                                    o.width, o.panel_height));
  }
  const std::size_t all = trace.invocations();
  if (all == 0) throw ArgumentError("access picture: the trace holds no accesses");
  if (o.first_invocation >= all) {
    throw ArgumentError(fmt::format("access picture: first invocation {} is past the last ({})",
                                    o.first_invocation, all - 1));
  }
  const std::size_t first = o.first_invocation;
  const std::size_t count =
      o.invocation_count == 0 ? all - first : std::min(o.invocation_count, all - first);
  // The element axis spans what the drawn invocations touch, so a window of a few work
  // groups is not squeezed into a sliver of a large array.
  Window win{first, count, std::numeric_limits<std::uint32_t>::max(), 0};
  for (const auto& a : trace.accesses) {
    if (a.invocation < first || a.invocation >= first + count) continue;
    win.low = std::min(win.low, a.element);
    win.high = std::max(win.high, a.element);
  }
  if (win.low > win.high) {
    throw ArgumentError(fmt::format("access picture: invocations {}..{} made no accesses", first,
                                    first + count - 1));
  }
  std::vector<AccessKind> panels;
  if (trace.count(AccessKind::Read) > 0) panels.push_back(AccessKind::Read);
  if (trace.count(AccessKind::Write) > 0) panels.push_back(AccessKind::Write);

#ifndef GPGPU_HAVE_PNG
  (void)path;
  (void)panels;
  (void)win;
  throw UnsupportedError(
      "write_access_png: gpgpu was built without libpng (install libpng-dev "
      "and rebuild)");
#else
  const int header_lines = o.title.empty() ? 2 : 3;
  const int height = margin + header_lines * line_height + 6 +
                     static_cast<int>(panels.size()) * (line_height + o.panel_height + 14) + margin;
  Canvas canvas(o.width + 2 * margin, height);
  int y = margin;
  if (!o.title.empty()) {
    canvas.text(margin, y, o.title, text_colour);
    y += line_height;
  }
  canvas.text(margin, y,
              fmt::format("X: INVOCATIONS {}..{} (GROUP {}X{}X{}; COLOUR = WARP OF {}, ODD GROUPS "
                          "DARKER)",
                          first, first + count - 1, trace.local_size[0], trace.local_size[1],
                          trace.local_size[2], o.warp_size),
              text_colour);
  y += line_height;
  canvas.text(
      margin, y,
      fmt::format("Y: ELEMENT OF {}[] {}..{} DOWNWARDS ({} BYTES EACH){}", trace.buffer, win.low,
                  win.high, trace.element_bytes, trace.truncated ? " - TRACE TRUNCATED" : ""),
      text_colour);
  y += line_height + 6;
  for (const AccessKind kind : panels) {
    draw_panel(canvas, trace, kind, y, o, win);
    y += line_height + o.panel_height + 14;
  }

  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(canvas.width());
  image.height = static_cast<png_uint_32>(canvas.height());
  image.format = PNG_FORMAT_RGB;
  const std::string file = path.string();
  if (png_image_write_to_file(&image, file.c_str(), 0, canvas.pixels().data(), 0, nullptr) == 0) {
    const std::string why = image.message;
    png_image_free(&image);
    throw Error(fmt::format("write_access_png: cannot write '{}': {}", file, why));
  }
#endif
}

}  // namespace gpgpu
