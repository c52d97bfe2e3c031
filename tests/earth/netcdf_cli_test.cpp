// `gpgpu earth --netcdf` and `--initial`, run as a user would: the records land where asked
// (the start, every --netcdf-every hours, the end), the last record's h is the run's final field
// bit for bit (against the same run's --save file), a run started from a record reproduces the
// uninterrupted run bit for bit, and bad requests are refused by name with no file left behind.
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "command.hpp"
#include "earth_test_fields.hpp"
#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/netcdf.hpp"

namespace ge = gpgpu::earth;
namespace fs = std::filesystem;

namespace {

gpgpu::test::CommandResult earth(const std::string& arguments) {
  return gpgpu::test::run_command(
      GPGPU_CLI_PATH, "earth " + arguments,
      fs::temp_directory_path() /
          ("gpgpu_earth_netcdf_cli_" + std::to_string(::getpid()) + ".log"));
}

// The values of a field `gpgpu earth --save` wrote: a 40-byte header, then float64 per cell.
std::vector<double> saved_field(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(40);
  std::vector<double> v;
  double x = 0;
  while (in.read(reinterpret_cast<char*>(&x), sizeof x)) v.push_back(x);
  return v;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i])) return false;
  }
  return true;
}

class EarthNetcdfCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpgpu_earth_netcdf_cli_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(EarthNetcdfCli, RecordsTheRunAndItsLastHeightBitForBit) {
  const auto file = dir_ / "case5.nc";
  const auto r = earth("--case 5 --level 4 --days 1 --netcdf-every 6 --no-pictures --save --out " +
                       (dir_ / "out").string() + " --netcdf " + file.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("wrote " + file.string()), std::string::npos) << r.output;
  const ge::Grid& grid = ge::test::grid_at(4);
  const auto setup = ge::make_case(5);
  const auto last = ge::read_netcdf_state(file, grid, setup);
  EXPECT_EQ(last.records, 5u);  // days 0, 0.25, 0.5, 0.75, 1
  // Times are sums of steps (float64): within a few eps64 per step of the stop's.
  EXPECT_NEAR(last.time, 86400.0, 1e-9);
  for (long k = 0; k < 5; ++k) {
    EXPECT_NEAR(ge::read_netcdf_state(file, grid, setup, k).time, 21600.0 * static_cast<double>(k),
                1e-9);
  }
  const auto saved = saved_field(dir_ / "out" / "height_case5_level4_day1.bin");
  ASSERT_EQ(saved.size(), grid.cell_count());
  EXPECT_TRUE(same_bits(last.fields.height, saved));
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir_)) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"case5.nc", "out"}));  // no temporary left
}

TEST_F(EarthNetcdfCli, ARunFromARecordEqualsTheUninterruptedRun) {
  const auto whole = dir_ / "whole.nc", second = dir_ / "second.nc";
  auto r = earth("--case 6 --level 3 --days 1 --netcdf-every 12 --no-pictures --out " +
                 dir_.string() + " --netcdf " + whole.string());
  ASSERT_EQ(r.status, 0) << r.output;
  // From the middle record (day 0.5) for the remaining half day: the same steps of the same
  // length from the same state.
  r = earth("--case 6 --level 3 --days 0.5 --no-pictures --out " + dir_.string() + " --initial " +
            whole.string() + " --initial-record 1 --netcdf " + second.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const ge::Grid& grid = ge::test::grid_at(3);
  const auto setup = ge::make_case(6);
  const auto a = ge::read_netcdf_state(whole, grid, setup);
  const auto b = ge::read_netcdf_state(second, grid, setup);
  // The second file's clock goes on from the record it started at (sums of steps: float64).
  EXPECT_NEAR(b.time, a.time, 1e-9);
  EXPECT_NEAR(ge::read_netcdf_state(second, grid, setup, 0).time, 43200.0, 1e-9);
  EXPECT_TRUE(same_bits(a.fields.height, b.fields.height));
  for (std::size_t i = 0; i < grid.cell_count(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint64_t>(a.fields.velocity[i].x),
              std::bit_cast<std::uint64_t>(b.fields.velocity[i].x))
        << i;
  }
}

TEST_F(EarthNetcdfCli, RefusesBadRequestsByName) {
  const auto file = dir_ / "case2.nc";
  ASSERT_EQ(earth("--case 2 --level 3 --days 0.1 --no-pictures --out " + dir_.string() +
                  " --netcdf " + file.string())
                .status,
            0);
  struct Refused {
    std::string arguments, message;
  };
  const std::vector<Refused> cases{
      {"--case 2 --level 2 --initial " + file.string(),
       "holds fields of a level-3 grid; this run's grid is level 2"},
      {"--case 5 --level 3 --initial " + file.string(),
       "holds case 2 (alpha 0); this run is case 5"},
      {"--case 2 --level 3 --grid bisection --initial " + file.string(),
       "holds fields of a spring grid"},
      {"--case 2 --level 3 --initial-record 7 --initial " + file.string(),
       "record 7 was asked for"},
      {"--case 2 --level 3 --initial " + (dir_ / "missing.nc").string(),
       "missing.nc: cannot open it as NetCDF"},
      {"--case 2 --level 3 --netcdf-every -6 --netcdf " + (dir_ / "x.nc").string(),
       "--netcdf-every must be a number of hours >= 0"},
      {"--case 2 --level 3 --netcdf " + (dir_ / "no" / "such" / "x.nc").string(),
       "cannot write a file in"},
  };
  for (const auto& c : cases) {
    const auto r =
        earth("--days 0.1 --no-pictures --out " + (dir_ / "o").string() + " " + c.arguments);
    EXPECT_EQ(r.status, 1) << c.arguments << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.arguments << "\n" << r.output;
  }
  EXPECT_FALSE(fs::exists(dir_ / "x.nc"));
  EXPECT_FALSE(fs::exists(dir_ / "no"));
}

}  // namespace
