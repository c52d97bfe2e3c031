// `mpirun -np 2 gpgpu earth --netcdf` as a user types it: every rank gathers the fields and
// rank 0 writes the file, whose every record equals one process's bit for bit; and a run on
// two ranks started from such a file (--initial, read by every rank) equals one process's.
#include <unistd.h>

#include <bit>
#include <cstdint>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "command.hpp"
#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/grid_cache.hpp"
#include "gpgpu/earth/netcdf.hpp"

namespace fs = std::filesystem;
namespace ge = gpgpu::earth;

namespace {

gpgpu::test::CommandResult run(const std::string& command) {
  return gpgpu::test::run_command(
      command, "",
      fs::temp_directory_path() /
          ("gpgpu_earth_netcdf_mpi_" + std::to_string(::getpid()) + ".log"));
}

// Every record of two files of case 6 at level 3: the same times, heights and velocities.
void expect_same_records(const fs::path& a, const fs::path& b) {
  ge::GridOptions o;
  o.level = 3;
  const ge::Grid grid = ge::cached_grid(o).grid;
  const auto setup = ge::make_case(6);
  const auto records = ge::read_netcdf_state(a, grid, setup).records;
  ASSERT_EQ(ge::read_netcdf_state(b, grid, setup).records, records);
  for (long r = 0; r < static_cast<long>(records); ++r) {
    const auto x = ge::read_netcdf_state(a, grid, setup, r),
               y = ge::read_netcdf_state(b, grid, setup, r);
    EXPECT_EQ(x.time, y.time) << "record " << r;
    for (std::size_t i = 0; i < grid.cell_count(); ++i) {
      ASSERT_EQ(std::bit_cast<std::uint64_t>(x.fields.height[i]),
                std::bit_cast<std::uint64_t>(y.fields.height[i]))
          << "record " << r << ", cell " << i;
      ASSERT_EQ(x.fields.velocity[i].z, y.fields.velocity[i].z) << "record " << r << ", cell " << i;
    }
  }
}

}  // namespace

TEST(EarthNetcdfRanks, TwoRanksWriteOneProcesssFile) {
  const fs::path dir =
      fs::temp_directory_path() / ("gpgpu_earth_netcdf_ranks_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string args =
      " earth --case 6 --level 3 --days 0.5 --netcdf-every 6 --no-pictures --out " +
      (dir / "out").string() + " --netcdf ";
  const std::string mpirun = std::string(GPGPU_MPIEXEC) + " --oversubscribe -np 2 ";
  auto r = run(std::string(GPGPU_CLI_PATH) + args + (dir / "one.nc").string());
  ASSERT_EQ(r.status, 0) << r.output;
  r = run(mpirun + GPGPU_CLI_PATH + args + (dir / "two.nc").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("rank 1 of 2"), std::string::npos) << r.output;
  expect_same_records(dir / "one.nc", dir / "two.nc");
  // On from the middle record, on one process and on two ranks.
  const std::string on = " earth --case 6 --level 3 --days 0.25 --no-pictures --out " +
                         (dir / "out").string() + " --initial " + (dir / "one.nc").string() +
                         " --initial-record 1 --netcdf ";
  r = run(std::string(GPGPU_CLI_PATH) + on + (dir / "one-on.nc").string());
  ASSERT_EQ(r.status, 0) << r.output;
  r = run(mpirun + GPGPU_CLI_PATH + on + (dir / "two-on.nc").string());
  ASSERT_EQ(r.status, 0) << r.output;
  expect_same_records(dir / "one-on.nc", dir / "two-on.nc");
  fs::remove_all(dir);
}
