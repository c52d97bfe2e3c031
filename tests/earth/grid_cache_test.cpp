// Grids kept on disk: the cache (round trip, damaged and foreign entries, GPGPU_CACHE=off),
// grid files (round trip, damage, another grid than asked for) and grids as bytes.
#include <fstream>

#include <gtest/gtest.h>

#include "gpgpu/cache.hpp"
#include "gpgpu/earth/grid_cache.hpp"
#include "gpgpu/error.hpp"
#include "grid_sandbox.hpp"
#include "test_support.hpp"

namespace ge = gpgpu::earth;
namespace fs = std::filesystem;

namespace {

ge::GridOptions cpu_grid(int level) {
  ge::GridOptions o;
  o.level = level;
  o.device = ge::GridDevice::Cpu;  // a CPU build is the same bits every time
  return o;
}

std::vector<char> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(GridCache, RoundTripIsBitExact) {
  ge::test::CacheSandbox sandbox;
  const auto built = ge::cached_grid(cpu_grid(4));
  EXPECT_EQ(built.report.source, "built");
  ASSERT_EQ(sandbox.entries().size(), 1u);
  const auto loaded = ge::cached_grid(cpu_grid(4));
  EXPECT_EQ(loaded.report.source, "cache");
  ge::test::expect_same_grid(built.grid, loaded.grid);
  ge::test::expect_same_grid(built.grid, ge::decode_grid(ge::encode_grid(built.grid)));
  EXPECT_TRUE(sandbox.warnings.empty());
}

TEST(GridCache, KeyHoldsEveryOptionThatChangesTheGrid) {
  const std::string base = ge::grid_cache_key(cpu_grid(4));
  auto changed = [&](auto&& change) {
    ge::GridOptions o = cpu_grid(4);
    change(o);
    return ge::grid_cache_key(o);
  };
  EXPECT_NE(changed([](auto& o) { o.level = 5; }), base);
  EXPECT_NE(changed([](auto& o) { o.optimization = ge::GridOptimization::Bisection; }), base);
  EXPECT_NE(changed([](auto& o) { o.control_volume = ge::ControlVolume::Voronoi; }), base);
  EXPECT_NE(changed([](auto& o) { o.recentre = false; }), base);
  EXPECT_NE(changed([](auto& o) { o.reorder = false; }), base);
  EXPECT_NE(changed([](auto& o) { o.spring_beta = 1.2000000000000002; }), base);
  EXPECT_NE(changed([](auto& o) { o.spring_tolerance = 2e-6; }), base);
  EXPECT_NE(changed([](auto& o) { o.spring_max_sweeps = 100; }), base);
  // How a grid is built is not what it is.
  EXPECT_EQ(changed([](auto& o) { o.device = ge::GridDevice::Gpu; }), base);
}

// A damaged entry is one warning, then the grid is built again and stored whole.
void expect_rebuilt_once(ge::test::CacheSandbox& sandbox, const ge::Grid& original) {
  const auto again = ge::cached_grid(cpu_grid(3));
  EXPECT_EQ(again.report.source, "built");
  EXPECT_EQ(sandbox.warnings.size(), 1u);
  ge::test::expect_same_grid(original, again.grid);
  const auto next = ge::cached_grid(cpu_grid(3));
  EXPECT_EQ(next.report.source, "cache");
  EXPECT_EQ(sandbox.warnings.size(), 1u);
}

TEST(GridCache, TruncatedEntryIsRebuiltWithOneWarning) {
  ge::test::CacheSandbox sandbox;
  const ge::Grid original = ge::cached_grid(cpu_grid(3)).grid;
  ASSERT_EQ(sandbox.entries().size(), 1u);
  auto bytes = read_bytes(sandbox.entries()[0]);
  bytes.resize(bytes.size() / 2);
  write_bytes(sandbox.entries()[0], bytes);
  expect_rebuilt_once(sandbox, original);
}

TEST(GridCache, BitFlippedEntryIsRebuiltWithOneWarning) {
  ge::test::CacheSandbox sandbox;
  const ge::Grid original = ge::cached_grid(cpu_grid(3)).grid;
  auto bytes = read_bytes(sandbox.entries()[0]);
  std::uniform_int_distribution<std::size_t> at(bytes.size() / 4, bytes.size() - 1);
  bytes[at(gpgpu::test::rng())] ^= 0x10;  // inside the centres or the triangles
  write_bytes(sandbox.entries()[0], bytes);
  expect_rebuilt_once(sandbox, original);
}

TEST(GridCache, EntryOfAnotherVersionIsRebuiltWithOneWarning) {
  ge::test::CacheSandbox sandbox;
  const ge::Grid original = ge::build_grid(cpu_grid(3));
  // An entry of the next format version under the same key, in the same file.
  const gpgpu::cache::Store newer("earth-grids", ge::grid_format_version + 1);
  const auto image = ge::encode_grid(original);
  ASSERT_TRUE(newer.store(ge::grid_cache_key(cpu_grid(3)), image));
  ASSERT_EQ(sandbox.entries().size(), 1u);
  expect_rebuilt_once(sandbox, original);
  EXPECT_NE(sandbox.warnings[0].find("version"), std::string::npos) << sandbox.warnings[0];
}

TEST(GridCache, EntryThatIsNotAMeshIsRebuiltWithOneWarning) {
  ge::test::CacheSandbox sandbox;
  ge::Grid broken = ge::build_grid(cpu_grid(3));
  broken.triangles[7][1] = static_cast<std::int32_t>(broken.cell_count() + 5);
  const gpgpu::cache::Store store("earth-grids", ge::grid_format_version);
  ASSERT_TRUE(store.store(ge::grid_cache_key(cpu_grid(3)), ge::encode_grid(broken)));
  expect_rebuilt_once(sandbox, ge::build_grid(cpu_grid(3)));
}

TEST(GridCache, OffWritesNothing) {
  ge::test::CacheSandbox sandbox;
  setenv("GPGPU_CACHE", "off", 1);
  const auto first = ge::cached_grid(cpu_grid(3));
  const auto second = ge::cached_grid(cpu_grid(3));
  unsetenv("GPGPU_CACHE");
  EXPECT_EQ(first.report.source, "built");
  EXPECT_EQ(second.report.source, "built");
  EXPECT_TRUE(fs::is_empty(sandbox.dir));
}

TEST(GridFile, RoundTripIsBitExact) {
  ge::test::CacheSandbox sandbox;
  const ge::Grid g = ge::build_grid(cpu_grid(4));
  const fs::path file = sandbox.dir / "level4.grid";
  ge::save_grid_file(g, file);
  ge::test::expect_same_grid(g, ge::load_grid_file(file));
  const auto checked = ge::load_grid_file(file, cpu_grid(4));
  EXPECT_EQ(checked.report.source, "file");
  ge::test::expect_same_grid(g, checked.grid);
  // 48 bytes a cell, a header and a checksum: the rest is recomputed on reading.
  EXPECT_LT(fs::file_size(file), 48 * g.cell_count() + 200);
}

TEST(GridFile, AnotherGridIsRefusedNamingBoth) {
  ge::test::CacheSandbox sandbox;
  const fs::path file = sandbox.dir / "level3.grid";
  ge::save_grid_file(ge::build_grid(cpu_grid(3)), file);
  const std::string level =
      gpgpu::test::error_message_of([&] { ge::load_grid_file(file, cpu_grid(4)); });
  EXPECT_NE(level.find("level-3"), std::string::npos) << level;
  EXPECT_NE(level.find("level 4"), std::string::npos) << level;
  EXPECT_THROW(ge::load_grid_file(file, cpu_grid(4)), gpgpu::ArgumentError);
  ge::GridOptions bisection = cpu_grid(3);
  bisection.optimization = ge::GridOptimization::Bisection;
  const std::string kind =
      gpgpu::test::error_message_of([&] { ge::load_grid_file(file, bisection); });
  EXPECT_NE(kind.find("spring"), std::string::npos) << kind;
  EXPECT_NE(kind.find("bisection"), std::string::npos) << kind;
}

TEST(GridFile, DamagedOrForeignFilesAreRefused) {
  ge::test::CacheSandbox sandbox;
  const fs::path file = sandbox.dir / "level3.grid";
  ge::save_grid_file(ge::build_grid(cpu_grid(3)), file);
  const auto good = read_bytes(file);
  auto truncated = good;
  truncated.resize(good.size() - 100);
  write_bytes(file, truncated);
  EXPECT_THROW(ge::load_grid_file(file), gpgpu::FormatError);
  auto flipped = good;
  flipped[good.size() / 2] ^= 0x01;
  write_bytes(file, flipped);
  EXPECT_NE(gpgpu::test::error_message_of([&] { ge::load_grid_file(file); }).find("damaged"),
            std::string::npos);
  write_bytes(file, std::vector<char>(good.begin() + 16, good.end()));  // no file header
  EXPECT_THROW(ge::load_grid_file(file), gpgpu::FormatError);
  EXPECT_THROW(ge::load_grid_file(sandbox.dir / "missing.grid"), gpgpu::Error);
}

TEST(GridImage, OtherVersionAndDamageAreFormatErrors) {
  const ge::Grid g = ge::build_grid(cpu_grid(2));
  auto image = ge::encode_grid(g);
  auto newer = image;
  newer[8] = static_cast<std::byte>(ge::grid_format_version + 1);  // the version field
  const std::string message = gpgpu::test::error_message_of([&] { ge::decode_grid(newer); });
  EXPECT_NE(message.find("version"), std::string::npos) << message;
  image.pop_back();
  EXPECT_THROW(ge::decode_grid(image), gpgpu::FormatError);
  EXPECT_THROW(ge::decode_grid(std::vector<std::byte>(10)), gpgpu::FormatError);
}

}  // namespace
