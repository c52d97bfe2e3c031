// The globe (a fragment kernel), animation frames, grid pictures and MP4 encoding.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "earth/canvas.hpp"
#include "earth/render_common.hpp"
#include "gpgpu/earth/diagnostics.hpp"
#include "gpgpu/earth/render.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/fragment_kernel.hpp"
#include "gpgpu/texture.hpp"

namespace gpgpu::earth {

namespace {

constexpr double pi = 3.14159265358979323846;
constexpr detail::Rgb paper{250, 250, 250}, ink{20, 20, 20};

// One fragment per pixel: the ray through the pixel meets the unit sphere at p; the field
// is sampled bilinearly from the equirectangular image at p's latitude and longitude,
// coloured, lit, and crossed by a 30-degree graticule.
constexpr const char* globe_source = R"(
uniform sampler2D field;      // equirectangular, row 0 at latitude 90
uniform vec2 range;           // (min, 1 / (max - min))
uniform vec3 view_x;          // world directions of the picture's right, up, and out
uniform vec3 view_y;
uniform vec3 view_z;
uniform vec3 palette[8];
uniform int palette_size;
uniform float size;           // pixels across
out uint rgba;

const float PI = 3.14159265358979;

vec3 colour(float t) {
  t = clamp(t, 0.0, 1.0) * float(palette_size - 1);
  int k = min(int(t), palette_size - 2);
  return mix(palette[k], palette[k + 1], t - float(k));
}

float texel(ivec2 at, ivec2 ts) {
  at.x = (at.x % ts.x + ts.x) % ts.x;
  at.y = clamp(at.y, 0, ts.y - 1);
  return texelFetch(field, at, 0).r;
}

void main() {
  ivec2 c = gpgpu_coord();
  vec2 uv = (vec2(c) + 0.5) / size * 2.0 - 1.0;
  uv.y = -uv.y;
  float rr = dot(uv, uv);
  if (rr > 1.0) {
    rgba = packUnorm4x8(vec4(0.98, 0.98, 0.98, 1.0));
    return;
  }
  float z = sqrt(1.0 - rr);
  vec3 p = uv.x * view_x + uv.y * view_y + z * view_z;
  float lat = asin(clamp(p.z, -1.0, 1.0));
  float lon = atan(p.y, p.x);
  ivec2 ts = textureSize(field, 0);
  float fx = (lon + PI) / (2.0 * PI) * float(ts.x) - 0.5;
  float fy = (0.5 * PI - lat) / PI * float(ts.y) - 0.5;
  ivec2 a = ivec2(floor(fx), floor(fy));
  vec2 f = vec2(fx, fy) - vec2(a);
  float v = mix(mix(texel(a, ts), texel(a + ivec2(1, 0), ts), f.x),
                mix(texel(a + ivec2(0, 1), ts), texel(a + ivec2(1, 1), ts), f.x), f.y);
  vec3 col = colour((v - range.x) * range.y);
  col *= 0.45 + 0.55 * max(dot(vec3(uv, z), normalize(vec3(-0.4, 0.5, 0.8))), 0.0);
  float step = radians(30.0);
  float dlat = abs(lat - step * round(lat / step));
  float dlon = abs(lon - step * round(lon / step)) * cos(lat);
  float pixel = 2.0 / size / max(z, 0.15);
  float line = 1.0 - smoothstep(0.4 * pixel, 1.4 * pixel, min(dlat, dlon));
  col = mix(col, vec3(1.0), 0.5 * line);
  float edge = smoothstep(1.0 - 2.0 / size, 1.0, sqrt(rr));
  col = mix(col, vec3(0.98), edge);
  rgba = packUnorm4x8(vec4(col, 1.0));
}
)";

std::vector<float> palette_uniform(Palette p, int& count) {
  count = 7;
  std::vector<float> v(3 * 8, 0.0f);
  for (int k = 0; k < count; ++k) {
    const std::uint32_t c = palette_colour(p, static_cast<double>(k) / (count - 1));
    v[3 * k + 0] = static_cast<float>((c >> 16) & 0xFF) / 255.0f;
    v[3 * k + 1] = static_cast<float>((c >> 8) & 0xFF) / 255.0f;
    v[3 * k + 2] = static_cast<float>(c & 0xFF) / 255.0f;
  }
  return v;
}

std::array<float, 3> f3(const Vec3& v) {
  return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
}

}  // namespace

struct GlobeRenderer::Impl {
  const Context* context;
  int size;
  FragmentKernel kernel;
  Impl(const Context& ctx, int s)
      : context(&ctx), size(s), kernel(ctx, globe_source, {}, "earth globe") {}
};

GlobeRenderer::GlobeRenderer(const Context& context, int size) {
  if (size < 16 || size > 8192) {
    throw ArgumentError(fmt::format("earth globe: size must be 16..8192 pixels; got {}", size));
  }
  impl_ = std::make_unique<Impl>(context, size);
}
GlobeRenderer::~GlobeRenderer() = default;
GlobeRenderer::GlobeRenderer(GlobeRenderer&&) noexcept = default;
GlobeRenderer& GlobeRenderer::operator=(GlobeRenderer&&) noexcept = default;
int GlobeRenderer::size() const {
  return impl_->size;
}

std::vector<std::uint32_t> GlobeRenderer::render(const MapProjector& map,
                                                 std::span<const double> values,
                                                 const FieldStyle& style, double view_lat,
                                                 double view_lon) {
  const auto image = map.sample(values);
  const auto field = Texture::from(
      *impl_->context, TexelType::Float,
      {static_cast<std::size_t>(map.height()), static_cast<std::size_t>(map.width())}, image);
  const double lat = view_lat * pi / 180, lon = view_lon * pi / 180;
  int count = 0;
  const auto palette = palette_uniform(style.palette, count);
  const std::size_t n = static_cast<std::size_t>(impl_->size);
  std::vector<std::uint32_t> rgba(n * n);
  impl_->kernel.run(
      {{"field", field},
       {"range", std::array<float, 2>{static_cast<float>(style.min),
                                      static_cast<float>(1.0 / (style.max - style.min))}},
       {"view_x", f3(east_at(lon))},
       {"view_y", f3(north_at(lat, lon))},
       {"view_z", f3(from_lat_lon(lat, lon))},
       {"palette", palette},
       {"palette_size", static_cast<std::int32_t>(count)},
       {"size", static_cast<float>(impl_->size)},
       {"rgba", gpgpu::out(rgba)}},
      n, n);
  return rgba;
}

Image render_globe(GlobeRenderer& globe, const MapProjector& map, std::span<const double> values,
                   const FieldStyle& style, double view_lat, double view_lon) {
  const int s = globe.size(), margin = 16, top = 40;
  detail::Canvas c(s + 2 * margin + 80, s + top + 64, paper);
  c.text(margin, 12, style.title, ink, 2);
  c.paste_rgba(globe.render(map, values, style, view_lat, view_lon), s, s, margin, top);
  detail::draw_colour_bar(c, margin, top + s + 8, s, style);
  return {c.width(), c.height(), c.pixels()};
}

void write_globe_png(const std::filesystem::path& path, GlobeRenderer& globe,
                     const MapProjector& map, std::span<const double> values,
                     const FieldStyle& style, double view_lat, double view_lon) {
  write_png(path, render_globe(globe, map, values, style, view_lat, view_lon));
}

Image render_frame(GlobeRenderer& globe, const MapProjector& map, std::span<const double> values,
                   const FieldStyle& style, double view_lat, double view_lon,
                   const std::string& caption) {
  const int s = globe.size(), margin = 16, band = 36;
  const Image flat = render_map(map, values, style);
  int width = s + 3 * margin + flat.width, height = band + std::max(s + 40 + margin, flat.height);
  width += width % 2, height += height % 2;  // H.264 in yuv420p needs even sizes
  detail::Canvas c(width, height, paper);
  c.text(margin, 12, caption, ink, 2);
  c.paste_rgba(globe.render(map, values, style, view_lat, view_lon), s, s, margin, band + 40);
  c.paste(detail::Canvas(flat.width, flat.height, flat.rgb), s + 2 * margin, band);
  return {c.width(), c.height(), c.pixels()};
}

Image render_grid(const Grid& grid, int size, double view_lat, double view_lon) {
  if (size < 16 || size > 8192) {
    throw ArgumentError(
        fmt::format("earth grid picture: size must be 16..8192 pixels; got {}", size));
  }
  const int margin = 16, top = 40;
  detail::Canvas c(size + 2 * margin, size + top + margin, paper);
  double mean_area = 0, lo = 1e300, hi = 0;
  for (double a : grid.areas) mean_area += a, lo = std::min(lo, a), hi = std::max(hi, a);
  mean_area /= static_cast<double>(grid.cell_count());
  c.text(margin, 12,
         fmt::format("LEVEL {}: {} CELLS; COLOUR = AREA / MEAN, {:.3f}..{:.3f}", grid.level,
                     grid.cell_count(), lo / mean_area, hi / mean_area),
         ink, 2);
  const double lat0 = view_lat * pi / 180, lon0 = view_lon * pi / 180;
  const Vec3 vx = east_at(lon0), vy = north_at(lat0, lon0), vz = from_lat_lon(lat0, lon0);
  Locator locator(grid);
  const double pixel = 2.0 / size;
  for (int y = 0; y < size; ++y) {
    for (int s = 0; s < size; ++s) {
      const int x = (y % 2 == 0) ? s : size - 1 - s;
      const double u = (x + 0.5) * pixel - 1, v = 1 - (y + 0.5) * pixel, rr = u * u + v * v;
      if (rr > 1) continue;
      const double z = std::sqrt(1 - rr);
      const Vec3 p = vx * u + vy * v + vz * z;
      const std::size_t cell = locator.cell_of(p);
      double nearest_edge = 1e300;
      for (int k = 0; k < grid.degree[cell]; ++k) {
        nearest_edge = std::min(nearest_edge, std::abs(dot(p, grid.edge_normals[cell][k])));
      }
      const double t = (grid.areas[cell] - lo) / std::max(hi - lo, 1e-300);
      const std::uint32_t col = palette_colour(Palette::Height, 0.15 + 0.7 * t);
      const double light = 0.55 + 0.45 * z;
      detail::Rgb rgb{static_cast<std::uint8_t>(((col >> 16) & 0xFF) * light),
                      static_cast<std::uint8_t>(((col >> 8) & 0xFF) * light),
                      static_cast<std::uint8_t>((col & 0xFF) * light)};
      // Foreshortening: an edge a pixel wide on the screen is z pixels wide on the sphere.
      const double w = nearest_edge / (pixel * std::max(z, 0.1));
      c.set(margin + x, top + y, rgb);
      if (w < 1.0) c.blend(margin + x, top + y, {25, 25, 35}, 1.0 - w);
    }
  }
  return {c.width(), c.height(), c.pixels()};
}

std::filesystem::path find_ffmpeg() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::filesystem::path candidate = std::filesystem::path(dir) / "ffmpeg";
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
  }
  return {};
}

bool encode_mp4(const std::filesystem::path& dir, const std::string& pattern,
                const std::filesystem::path& output, int fps, std::string& why) {
  const auto ffmpeg = find_ffmpeg();
  if (ffmpeg.empty()) {
    why = "ffmpeg is not installed (Debian: apt-get install ffmpeg); the PNG frames are written";
    return false;
  }
  const std::filesystem::path temporary = output.string() + ".tmp.mp4";
  auto quote = [](const std::filesystem::path& p) {
    std::string s = "'";
    for (char ch : p.string()) s += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return s + "'";
  };
  const std::string command = fmt::format(
      "{} -loglevel error -y -framerate {} -i {} -c:v libx264 -pix_fmt yuv420p {} < /dev/null",
      quote(ffmpeg), fps, quote(dir / pattern), quote(temporary));
  const int status = std::system(command.c_str());
  std::error_code ec;
  if (status != 0 || !std::filesystem::exists(temporary, ec)) {
    std::filesystem::remove(temporary, ec);
    why = fmt::format("ffmpeg failed (status {}) running: {}", status, command);
    return false;
  }
  std::filesystem::rename(temporary, output, ec);
  if (ec) {
    why = fmt::format("cannot rename {} to {}: {}", temporary.string(), output.string(),
                      ec.message());
    return false;
  }
  return true;
}

}  // namespace gpgpu::earth
