// `gpgpu train` and `gpgpu predict` with --backend and --threads, run as a user would: an
// unknown backend is refused (before any data is read) with the list of backends, a bad
// thread count in the environment is named, and a model trained on the cpu backend is
// classified by predict on the compute backend.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

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

}  // namespace
