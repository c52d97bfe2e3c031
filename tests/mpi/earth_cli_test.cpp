// `mpirun -np N gpgpu earth ...` as a user types it (gpgpu hands over to gpgpu-mpi): the
// saved height and the final fields' hash equal one process's for 2 and 3 ranks, a rank
// that fails alone (a reference file only rank 0 reads) ends the job with its message, and
// an option error is reported once.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "command.hpp"

namespace fs = std::filesystem;

namespace {

gpgpu::test::CommandResult run(const std::string& command) {
  return gpgpu::test::run_command(
      command, "",
      fs::temp_directory_path() / ("gpgpu_earth_mpi_" + std::to_string(::getpid()) + ".log"));
}

std::string mpirun(int ranks) {
  return std::string(GPGPU_MPIEXEC) + " --oversubscribe -np " + std::to_string(ranks) + " ";
}

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string hash_line(const std::string& output) {
  const auto at = output.find("final fields: FNV-1a ");
  return at == std::string::npos ? "(none)" : output.substr(at, 37);
}

class EarthMpiCli : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpgpu_earth_mpi_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

}  // namespace

TEST_F(EarthMpiCli, RanksGiveOneProcessesBits) {
  // Case 2 on 3 ranks, case 6 on 2 (earth_ranks_test covers both cases on both counts). One
  // process runs the ranks' kernels: on a GPU it would step level 3 in one dispatch (the
  // plain kernels' expressions), where the ranks fuse the stages (contracted differently).
  for (const auto& [c, ranks] : {std::pair{2, 3}, std::pair{6, 2}}) {
    const std::string args =
        " earth --case " + std::to_string(c) + " --level 3 --days 1 --no-pictures --save --out ";
    const auto one =
        run(std::string(GPGPU_CLI_PATH) + args + (dir_ / "one").string() + " --one-dispatch off");
    ASSERT_EQ(one.status, 0) << one.output;
    const auto saved = "height_case" + std::to_string(c) + "_level3_day1.bin";
    const auto out = dir_ / ("ranks" + std::to_string(ranks));
    const auto many = run(mpirun(ranks) + GPGPU_CLI_PATH + args + out.string());
    ASSERT_EQ(many.status, 0) << many.output;
    EXPECT_NE(
        many.output.find("rank " + std::to_string(ranks - 1) + " of " + std::to_string(ranks)),
        std::string::npos)
        << many.output;
    EXPECT_EQ(hash_line(many.output), hash_line(one.output)) << many.output;
    EXPECT_EQ(contents(out / saved), contents(dir_ / "one" / saved)) << "case " << c;
  }
}

TEST_F(EarthMpiCli, ARankThatFailsAloneEndsTheJob) {
  const auto r = run(mpirun(2) + GPGPU_CLI_PATH +
                     " earth --level 3 --days 1 --no-pictures --save --reference " +
                     (dir_ / "missing.bin").string());
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("rank 0 of 2: error: earth: cannot open reference"), std::string::npos)
      << r.output;
}

TEST_F(EarthMpiCli, OptionErrorsAreReportedOnce) {
  const auto r = run(mpirun(3) + GPGPU_CLI_PATH + " earth --days -1");
  EXPECT_NE(r.status, 0);
  const std::string message = "--days must be a positive number of days; got -1";
  const auto first = r.output.find(message);
  EXPECT_NE(first, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(message, first + 1), std::string::npos) << r.output;
}

// An environment that turns Open MPI's single-copy transfers off (as some images preset) is
// noted once, by rank 0; without it nothing is said.
TEST_F(EarthMpiCli, SingleCopyTurnedOffIsNotedOnce) {
  const std::string variable = "OMPI_MCA_btl_vader_single_copy_mechanism";
  const std::string command = mpirun(2) + GPGPU_CLI_PATH +
                              " earth --level 2 --days 0.1 --no-pictures --out " + dir_.string();
  const auto off = run("env " + variable + "=none " + command);
  ASSERT_EQ(off.status, 0) << off.output;
  const std::string note = "note: " + variable + "=none turns Open MPI's single-copy transfers";
  const auto first = off.output.find(note);
  EXPECT_NE(first, std::string::npos) << off.output;
  EXPECT_EQ(off.output.find(note, first + 1), std::string::npos) << off.output;
  const auto unset = run("env -u " + variable + " " + command);
  ASSERT_EQ(unset.status, 0) << unset.output;
  EXPECT_EQ(unset.output.find("note: " + variable), std::string::npos) << unset.output;
}
