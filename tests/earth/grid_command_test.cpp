// `gpgpu earth` and `gpgpu earth grid` with grids on disk, run as a user would: processes
// sharing the cache, grid files of another level.
#include <unistd.h>

#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "command.hpp"
#include "gpgpu/earth/grid_cache.hpp"
#include "grid_sandbox.hpp"

namespace ge = gpgpu::earth;
namespace fs = std::filesystem;

namespace {

gpgpu::test::CommandResult run(const std::string& program, const std::string& arguments) {
  return gpgpu::test::run_command(
      program, arguments,
      fs::temp_directory_path() / ("gpgpu_earth_grid_cli_" + std::to_string(::getpid()) + ".log"));
}

std::string text_of(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Two processes that miss the same grid at once: one builds it, the other waits for it and
// reads it; the cache holds one valid entry.
TEST(EarthGridCommand, TwoProcessesAtOnceBuildTheGridOnce) {
  ge::test::CacheSandbox sandbox;
  const std::string one = std::string(GPGPU_CLI_PATH) + " earth grid --level 5 --grid-device cpu";
  const fs::path a = sandbox.dir / "a.txt", b = sandbox.dir / "b.txt";
  const auto both = run(
      "(" + one + " > " + a.string() + " 2>&1 & " + one + " > " + b.string() + " 2>&1 & wait)", "");
  ASSERT_EQ(both.status, 0) << both.output;
  const std::string out_a = text_of(a), out_b = text_of(b);
  EXPECT_EQ(has(out_a, "built on") + has(out_b, "built on"), 1) << out_a << out_b;
  EXPECT_EQ(has(out_a, "read from the cache") + has(out_b, "read from the cache"), 1)
      << out_a << out_b;
  ASSERT_EQ(sandbox.entries().size(), 1u);
  for (const auto& e : fs::directory_iterator(sandbox.dir / "earth-grids")) {
    EXPECT_TRUE(e.path().extension() == ".bin" || e.path().extension() == ".lock") << e.path();
  }
  ge::GridOptions o;
  o.level = 5;
  o.device = ge::GridDevice::Cpu;
  const auto cached = ge::cached_grid(o);
  EXPECT_EQ(cached.report.source, "cache");
  ge::test::expect_same_grid(ge::build_grid(o), cached.grid);
  EXPECT_TRUE(sandbox.warnings.empty());
}

TEST(EarthGridCommand, GridFileOfAnotherLevelIsRefusedNamingBothLevels) {
  ge::test::CacheSandbox sandbox;
  const std::string cli = GPGPU_CLI_PATH;
  const fs::path file = sandbox.dir / "level3.grid";
  const auto made = run(cli, "earth grid --level 3 --grid-device cpu --out " + file.string());
  ASSERT_EQ(made.status, 0) << made.output;
  EXPECT_TRUE(has(made.output, "grid file: " + file.string())) << made.output;
  const auto refused =
      run(cli, "earth --level 4 --days 0.1 --no-pictures --grid-file " + file.string());
  EXPECT_NE(refused.status, 0);
  EXPECT_TRUE(has(refused.output, "level-3") && has(refused.output, "level 4")) << refused.output;
  const auto used =
      run(cli, "earth --level 3 --days 0.1 --no-pictures --verbose --grid-file " + file.string());
  EXPECT_EQ(used.status, 0) << used.output;
  EXPECT_TRUE(has(used.output, "read from the file")) << used.output;
}

}  // namespace
