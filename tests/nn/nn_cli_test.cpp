// `gpgpu train` and `gpgpu predict` with --backend and --threads, run as a user would: an
// unknown backend is refused (before any data is read) with the list of backends, so is a bad
// tuning budget, a bad thread count in the environment is named, and a model trained on the
// cpu backend is classified by predict on the compute backend.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "command.hpp"
#include "gpgpu/nn.hpp"

namespace {

namespace fs = std::filesystem;

gpgpu::test::CommandResult gpgpu_cli(const std::string& arguments) {
  return gpgpu::test::run_command(
      GPGPU_CLI_PATH, arguments,
      fs::temp_directory_path() / ("gpgpu_nn_cli_" + std::to_string(::getpid()) + ".log"));
}

void expect_contains(const std::string& text, std::initializer_list<const char*> parts) {
  for (const char* p : parts) EXPECT_NE(text.find(p), std::string::npos) << p << " in:\n" << text;
}

TEST(NnCli, UnknownBackendsAreRefusedWithTheList) {
  for (const char* command :
       {"train --data /nonexistent", "predict /nonexistent-model --data /x"}) {
    const auto r = gpgpu_cli(std::string(command) + " --backend cuda");
    EXPECT_NE(r.status, 0) << r.output;
    expect_contains(r.output, {"'cuda'", "auto", "cpu", "compute", "transform-feedback"});
    EXPECT_EQ(r.output.find("nonexistent"), std::string::npos)
        << "the backend is checked before anything is read:\n"
        << r.output;
  }
}

// --autotune-seconds takes seconds >= 0 or inf; anything else is refused by name before any
// data is read.
TEST(NnCli, ATuningBudgetOutsideItsRangeIsRefused) {
  for (const char* value : {"-1", "nan", "abc", "1e999"}) {
    const auto r = gpgpu_cli(std::string("train --data /nonexistent --autotune-seconds ") + value);
    EXPECT_NE(r.status, 0) << r.output;
    expect_contains(r.output, {"--autotune-seconds", "inf", value});
    EXPECT_EQ(r.output.find("nonexistent"), std::string::npos) << r.output;
  }
}

TEST(NnCli, TrainsOnTheCpuAndPredictsOnCompute) {
  const fs::path dir = fs::temp_directory_path() / ("gpgpu_nn_cli_" + std::to_string(::getpid()));
  const std::string data = gpgpu::nn::default_data_dir().string();
  ASSERT_TRUE(fs::exists(data)) << data << " is missing: install dataset-fashion-mnist";
  ::setenv("GPGPU_THREADS", "many", 1);
  const auto bad = gpgpu_cli(
      "train --backend cpu --train-limit 64 --test-limit 10 --epochs 1 -q "
      "--no-plots --out " +
      dir.string());
  ::unsetenv("GPGPU_THREADS");
  EXPECT_NE(bad.status, 0) << bad.output;
  expect_contains(bad.output, {"$GPGPU_THREADS", "\"many\""});
  const auto r = gpgpu_cli(
      "train --backend cpu --threads 2 --net small --train-limit 320 "
      "--test-limit 100 --epochs 1 -q --no-plots --out " +
      dir.string());
  ASSERT_EQ(r.status, 0) << r.output;
  expect_contains(r.output, {"backend cpu (2 threads)", "test accuracy"});
  const auto p = gpgpu_cli("predict " + (dir / "model").string() + " --data " + data +
                           " --limit 100 --backend compute --no-plots --out " + dir.string());
  ASSERT_EQ(p.status, 0) << p.output;
  expect_contains(p.output, {"backend compute", "100 images", "accuracy"});
  fs::remove_all(dir);
}

// --timeline writes the window's marks (five a step under no hooks: three; host times only on
// llvmpipe) as CSV and says where; a window that ends before it starts is refused.
TEST(NnCli, WritesATimelineOfTheStepsAsked) {
  const fs::path dir =
      fs::temp_directory_path() / ("gpgpu_nn_timeline_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto csv = (dir / "steps.csv").string();
  const std::string run =
      "train --net small --train-limit 256 --test-limit 50 --batch 32 "
      "--epochs 1 -q --no-plots --out " +
      dir.string() + " --timeline " + csv;
  const auto r = gpgpu_cli(run + " --timeline-steps 3,4");
  ASSERT_EQ(r.status, 0) << r.output;
  expect_contains(r.output, {"timeline: ", "(steps 3 to 4;"});
  std::ifstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const std::vector<std::string> labels{"step", "backward queued", "update queued"};
  ASSERT_EQ(lines.size(), 1 + 2 * labels.size());
  EXPECT_EQ(lines[0], "label,index,host_us,gpu_us");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto expected =
        labels[(i - 1) % labels.size()] + "," + std::to_string(3 + (i - 1) / 3) + ",";
    EXPECT_EQ(lines[i].rfind(expected, 0), 0u) << lines[i];
  }
  const auto bad = gpgpu_cli(run + " --timeline-steps 5,2");
  EXPECT_EQ(bad.status, 1) << bad.output;
  expect_contains(bad.output,
                  {"train: --timeline-steps needs FIRST,LAST with 0 <= FIRST <= LAST; got 5,2"});
  fs::remove_all(dir);
}

}  // namespace
