// Pictures and the point locator: exact interpolation, containment, PNG files, the globe
// fragment kernel, ffmpeg detection.
#include <cmath>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "gpgpu/earth/diagnostics.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/earth/render.hpp"
#include "gpgpu/error.hpp"
#include "test_support.hpp"

namespace ge = gpgpu::earth;

namespace {

const ge::Grid& level3() {
  static const ge::Grid g = [] {
    ge::GridOptions o;
    o.level = 3;
    return ge::build_grid(o);
  }();
  return g;
}

ge::Vec3 random_point(std::mt19937& rng) {
  std::normal_distribution<double> n;
  return ge::normalized({n(rng), n(rng), n(rng)});
}

TEST(Locator, InterpolatesLinearFunctionsOfThePlaneExactly) {
  // The weights are barycentric on the triangle's plane at the ray through p: they
  // reproduce p's projection onto that plane exactly (to float64 rounding).
  const auto& g = level3();
  ge::Locator loc(g);
  for (int k = 0; k < 2000; ++k) {
    const ge::Vec3 p = random_point(gpgpu::test::rng());
    const auto hit = loc.locate(p);
    double wsum = 0;
    ge::Vec3 mix{};
    for (int c = 0; c < 3; ++c) {
      ASSERT_GE(hit.weights[c], -1e-12);
      wsum += hit.weights[c];
      mix += g.centres[hit.cells[c]] * hit.weights[c];
    }
    ASSERT_NEAR(wsum, 1.0, 1e-13);
    // mix lies on the ray through p.
    ASSERT_LE(ge::norm(ge::cross(ge::normalized(mix), p)), 1e-13);
    // The nearest centre is no farther than any of the triangle's corners.
    for (int c = 0; c < 3; ++c)
      ASSERT_GE(ge::dot(g.centres[hit.nearest], p), ge::dot(g.centres[hit.cells[c]], p) - 1e-15);
  }
}

TEST(Locator, CellOfHoldsThePoint) {
  const auto& g = level3();
  ge::Locator loc(g);
  for (int k = 0; k < 2000; ++k) {
    const ge::Vec3 p = random_point(gpgpu::test::rng());
    const std::size_t c = loc.cell_of(p);
    for (int e = 0; e < g.degree[c]; ++e) ASSERT_LE(ge::dot(p, g.edge_normals[c][e]), 1e-15);
  }
}

TEST(Render, PaletteEndsAndStyles) {
  EXPECT_EQ(ge::palette_colour(ge::Palette::Diverging, 0.5),
            ge::palette_colour(ge::Palette::Diverging, 0.5));
  EXPECT_EQ(ge::palette_colour(ge::Palette::Height, -3),
            ge::palette_colour(ge::Palette::Height, 0));
  EXPECT_EQ(ge::palette_colour(ge::Palette::Height, 7), ge::palette_colour(ge::Palette::Height, 1));
  const std::vector<double> v{-2, 5, 1};
  const auto s = ge::style_for(v, "T", "M", ge::Palette::Diverging);
  EXPECT_EQ(s.min, -5);
  EXPECT_EQ(s.max, 5);
  const auto h = ge::style_for(v, "T", "M", ge::Palette::Height);
  EXPECT_EQ(h.min, -2);
  EXPECT_EQ(h.max, 5);
}

TEST(Render, MapPngIsWrittenWholeOrNotAtAll) {
  const auto& g = level3();
  ge::MapProjector map(g, 128, 64);
  std::vector<double> z(g.cell_count());
  for (std::size_t i = 0; i < z.size(); ++i) z[i] = g.centres[i].z;
  // The map samples z: the top row is near +1, the bottom near -1.
  const auto sample = map.sample(z);
  EXPECT_GT(sample.front(), 0.95f);
  EXPECT_LT(sample.back(), -0.95f);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("earth_render_test_" + std::to_string(gpgpu::test::seed()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "z.png";
  ge::write_map_png(path, map, z, ge::style_for(z, "Z", "", ge::Palette::Diverging));
  std::ifstream in(path, std::ios::binary);
  char header[8];
  in.read(header, 8);
  ASSERT_TRUE(in);
  EXPECT_EQ(std::string(header + 1, 3), "PNG");
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
  const auto missing = dir / "no" / "such" / "z.png";
  EXPECT_THROW(ge::write_map_png(missing, map, z, ge::style_for(z, "Z", "", ge::Palette::Height)),
               gpgpu::Error);
  EXPECT_FALSE(std::filesystem::exists(missing));
  const std::vector<double> wrong(5, 1.0);
  EXPECT_THROW(map.sample(wrong), gpgpu::SizeMismatchError);
  std::filesystem::remove_all(dir);
}

TEST(Render, GlobeFragmentKernelDrawsTheField) {
  const auto& g = level3();
  ge::MapProjector map(g, 256, 128);
  std::vector<double> z(g.cell_count());
  for (std::size_t i = 0; i < z.size(); ++i) z[i] = g.centres[i].z;
  ge::GlobeRenderer globe(gpgpu::test::context(), 64);
  const auto style = ge::style_for(z, "Z", "", ge::Palette::Height);
  const auto px = globe.render(map, z, style, 0.0, 0.0);  // seen from the equator
  ASSERT_EQ(px.size(), 64u * 64u);
  auto rgb = [](std::uint32_t v) {
    return std::array<int, 3>{int(v & 0xFF), int((v >> 8) & 0xFF), int((v >> 16) & 0xFF)};
  };
  // Corners are outside the disc: the background.
  EXPECT_EQ(rgb(px[0])[0], 250);
  // Near the top (north) the field is high: the palette's yellow end (red + green > blue);
  // near the bottom it is low: the dark blue end (blue > red).
  const auto top = rgb(px[6 * 64 + 32]), bottom = rgb(px[57 * 64 + 32]);
  EXPECT_GT(top[0] + top[1], 2 * top[2]);
  EXPECT_GT(bottom[2], bottom[0]);
  EXPECT_THROW(ge::GlobeRenderer(gpgpu::test::context(), 4), gpgpu::ArgumentError);
}

TEST(Render, Mp4NeedsFfmpeg) {
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  setenv("PATH", "/nonexistent", 1);
  EXPECT_TRUE(ge::find_ffmpeg().empty());
  std::string why;
  EXPECT_FALSE(ge::encode_mp4("/tmp", "frame_%04d.png", "/tmp/never.mp4", 10, why));
  EXPECT_NE(why.find("ffmpeg"), std::string::npos);
  setenv("PATH", saved.c_str(), 1);
}

TEST(Render, GridPictureHasEdges) {
  const auto image = ge::render_grid(level3(), 200, 10, 20);
  EXPECT_EQ(image.width, 232);
  std::size_t dark = 0;
  for (std::size_t i = 0; i + 2 < image.rgb.size(); i += 3)
    dark += (image.rgb[i] < 60 && image.rgb[i + 2] < 70);
  EXPECT_GT(dark, 500u);  // the edges of ~300 visible cells
}

}  // namespace
