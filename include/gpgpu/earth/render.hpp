// gpgpu/earth/render.hpp — pictures of fields on the grid: maps, a globe, the grid itself.
//
//   gpgpu::earth::MapProjector map(grid, 1024, 512);      // which cells each pixel mixes
//   auto style = gpgpu::earth::style_for(h, "HEIGHT", "M", gpgpu::earth::Palette::Height);
//   gpgpu::earth::write_map_png("height.png", map, h, style);
//   gpgpu::earth::GlobeRenderer globe(ctx, 512);          // a FragmentKernel
//   gpgpu::earth::write_globe_png("globe.png", globe, map, h, style, 30, -60);
//
// Maps are equirectangular (longitude -180..180 left to right, latitude 90..-90 top to
// bottom), each pixel linearly interpolated from the grid's triangle that holds it, with a
// 30-degree graticule, a title and a colour bar with tick values. The globe is an
// orthographic view rendered on the GPU by a fragment kernel (one fragment per pixel,
// gpgpu's GPGPUtility path used as a renderer): it samples the map's equirectangular image,
// colours and shades it and draws the graticule. Grid pictures draw every control-volume
// edge on an orthographic view, cells coloured by area.
//
// PNG files are written to a temporary and renamed, never left half-written; errors are
// gpgpu::Error with the path.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/context.hpp"
#include "gpgpu/earth/grid.hpp"

namespace gpgpu::earth {

// The colour maps of the pictures.
enum class Palette {
  Height,     // dark blue - teal - yellow (sequential)
  Speed,      // black - purple - orange - pale yellow (sequential)
  Diverging,  // blue - white - red, for signed fields (vorticity, errors)
};

// How a field is drawn: title, units, colours and range.
struct FieldStyle {
  std::string title;  // printed above the map
  std::string units;  // printed after the colour bar's numbers
  Palette palette = Palette::Height;  // the colour map
  double min = 0, max = 1;  // the colour bar's range
};

// A style whose range covers the values (symmetric about zero for Diverging).
FieldStyle style_for(std::span<const double> values, std::string title, std::string units,
                     Palette palette);

// The colour of t in [0, 1] (clamped) as 0xRRGGBB.
std::uint32_t palette_colour(Palette palette, double t);

// Maps a grid's cells onto the pixels of an equirectangular (longitude-latitude) image.
class MapProjector {
 public:
  // Locates every pixel centre of a width x height equirectangular image on the grid.
  MapProjector(const Grid& grid, int width, int height);
  int width() const { return width_; }          // pixels
  int height() const { return height_; }        // pixels
  const Grid& grid() const { return *grid_; }  // the grid it was made for
  // The field at every pixel, row-major from the north-west corner.
  std::vector<float> sample(std::span<const double> values) const;

 private:
  const Grid* grid_;
  int width_, height_;
  std::vector<std::uint32_t> cells_;  // 3 per pixel
  std::vector<float> weights_;        // 3 per pixel
};

// The map with graticule, title and colour bar, as an RGB image (width x height of the
// projector plus margins).
struct Image {
  int width = 0, height = 0;      // pixels
  std::vector<std::uint8_t> rgb;  // row-major
};
// The map of `values` (one per cell) as `style` says.
Image render_map(const MapProjector& map, std::span<const double> values, const FieldStyle& style);
// Writes an Image as a PNG (atomically: a temporary file renamed into place).
void write_png(const std::filesystem::path& path, const Image& image);
// render_map, then write_png.
void write_map_png(const std::filesystem::path& path, const MapProjector& map,
                   std::span<const double> values, const FieldStyle& style);

// Draws a field on an orthographic globe with a fragment kernel.
class GlobeRenderer {
 public:
  // Compiles the fragment kernel; size x size pixels.
  GlobeRenderer(const Context& context, int size);
  ~GlobeRenderer();
  // @{
  // Moves the renderer; a moved-from GlobeRenderer must not be used.
  GlobeRenderer(GlobeRenderer&&) noexcept;
  GlobeRenderer& operator=(GlobeRenderer&&) noexcept;
  // @}
  int size() const;  // pixels along each side
  // The globe seen from above (latitude, longitude) in degrees, as RGBA8 pixels
  // (0xAABBGGRR), rows from the top.
  std::vector<std::uint32_t> render(const MapProjector& map, std::span<const double> values,
                                    const FieldStyle& style, double view_lat, double view_lon);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The globe with a title and a colour bar.
Image render_globe(GlobeRenderer& globe, const MapProjector& map, std::span<const double> values,
                   const FieldStyle& style, double view_lat, double view_lon);
// render_globe, then write_png.
void write_globe_png(const std::filesystem::path& path, GlobeRenderer& globe,
                     const MapProjector& map, std::span<const double> values,
                     const FieldStyle& style, double view_lat, double view_lon);

// The grid's control volumes seen from (view_lat, view_lon), coloured by area relative to
// the mean, edges dark; size x size pixels plus a caption.
Image render_grid(const Grid& grid, int size, double view_lat, double view_lon);

// Side by side: a globe and a map of the same field, one frame of an animation.
Image render_frame(GlobeRenderer& globe, const MapProjector& map, std::span<const double> values,
                   const FieldStyle& style, double view_lat, double view_lon,
                   const std::string& caption);

// The ffmpeg executable on PATH, or empty when there is none.
std::filesystem::path find_ffmpeg();
// Encodes dir/pattern (e.g. "frame_%04d.png") into an H.264 MP4 at `fps` frames per second
// with ffmpeg; writes to a temporary and renames. Returns false (and says why in `why`)
// when ffmpeg is missing or fails.
bool encode_mp4(const std::filesystem::path& dir, const std::string& pattern,
                const std::filesystem::path& output, int fps, std::string& why);

}  // namespace gpgpu::earth
