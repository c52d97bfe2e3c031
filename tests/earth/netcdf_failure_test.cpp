// NetCDF writes that fail half-way leave nothing behind. A full disk is simulated with a
// file-size limit (RLIMIT_FSIZE, with SIGXFSZ ignored, so that write(2) fails with EFBIG as it
// would with ENOSPC) set in a child process: the writer gets the failure from libnetcdf and
// HDF5 wherever it surfaces (a record, or the final flush), must throw gpgpu::Error naming the
// file, and must leave the folder as it was — no temporary, and an older file at the target
// untouched. No GL here: the fields are the case's initial ones, on a grid built on the CPU.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "earth_test_fields.hpp"
#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/netcdf.hpp"
#include "gpgpu/error.hpp"
#include "test_support.hpp"

namespace ge = gpgpu::earth;
namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

// Child exit codes.
enum Outcome { Threw = 0, NoError = 1, WrongError = 2, Crashed = 3 };

// In a child: limit files to `limit` bytes, write `records` records of a level-5 file (about
// 0.4 MB of mesh and 0.3 MB a record before compression) and report how it ended; the message
// goes to `message_file`.
int write_with_limit(const fs::path& target, rlim_t limit, int records,
                     const fs::path& message_file) {
  const ge::Grid& g = ge::test::grid_at(5);  // built before the limit: the cache may write
  const auto setup = ge::make_case(5);
  const auto fields = ge::initial_fields(g, setup);
  const std::vector<double> zeta(g.cell_count(), 1e-5);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit r{limit, limit};
    ::setrlimit(RLIMIT_FSIZE, &r);
    int code = Crashed;
    std::string what;
    try {
      ge::NetcdfWriter out(target, g, setup);
      for (int i = 0; i < records; ++i) out.write(3600.0 * i, fields, zeta);
      out.close();
      code = NoError;
    } catch (const gpgpu::Error& e) {
      what = e.what();
      code = Threw;
    } catch (const std::exception& e) {
      what = e.what();
      code = WrongError;
    }
    // The message is small: the limit leaves room for it once the big file is gone.
    std::ofstream(message_file) << what;
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) std::cerr << "child killed by signal " << WTERMSIG(status) << "\n";
  return WIFEXITED(status) ? WEXITSTATUS(status) : Crashed;
}

class NetcdfFailure : public ::testing::TestWithParam<int> {};

TEST_P(NetcdfFailure, FullDiskLeavesNoPartialFileAndKeepsTheOldOne) {
  const rlim_t limit = static_cast<rlim_t>(GetParam()) * 1024;
  const fs::path dir =
      fs::temp_directory_path() / ("gpgpu-netcdf-full-" + std::to_string(GetParam()) + "-" +
                                   std::to_string(gpgpu::test::seed()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path target = dir / "run.nc", message = dir / "message.txt";
  std::ofstream(target) << "the previous run's file";
  const int outcome = write_with_limit(target, limit, 8, message);
  const std::string what = read_all(message);
  fs::remove(message);
  EXPECT_EQ(outcome, Threw) << "limit " << limit << " bytes: " << what;
  EXPECT_NE(what.find("run.nc"), std::string::npos) << what;
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"run.nc"}) << what;
  EXPECT_EQ(read_all(target), "the previous run's file");
  fs::remove_all(dir);
}

// Limits that stop the write at its start (the header), in the mesh, and in the records.
INSTANTIATE_TEST_SUITE_P(Limits, NetcdfFailure, ::testing::Values(4, 96, 400, 900));

TEST(NetcdfFailure, TheSameWriteWithoutALimitSucceeds) {
  const fs::path dir =
      fs::temp_directory_path() / ("gpgpu-netcdf-nolimit-" + std::to_string(gpgpu::test::seed()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const int outcome = write_with_limit(dir / "run.nc", RLIM_INFINITY, 8, dir / "message.txt");
  EXPECT_EQ(outcome, NoError) << read_all(dir / "message.txt");
  fs::remove(dir / "message.txt");
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"run.nc"});
  // Large enough that every limit above falls short of it.
  EXPECT_GT(fs::file_size(dir / "run.nc"), 1200u * 1024);
  fs::remove_all(dir);
}

}  // namespace
