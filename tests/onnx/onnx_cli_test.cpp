// gpgpu export-onnx, predict and export-web with ONNX files, run as a user would: a model
// trained by `gpgpu train` leaves as ONNX and classifies the same images with the same
// accuracy when read back; export-web turns the ONNX file into the browser's model directory;
// a damaged file and a wrong output name are refused with messages naming them.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "command.hpp"
#include "gpgpu/nn.hpp"

namespace {

namespace fs = std::filesystem;

gpgpu::test::CommandResult gpgpu_cli(const std::string& arguments) {
  return gpgpu::test::run_command(
      GPGPU_CLI_PATH, arguments,
      fs::temp_directory_path() / ("gpgpu_onnx_cli_" + std::to_string(::getpid()) + ".log"));
}

void expect_contains(const std::string& text, std::initializer_list<std::string> parts) {
  for (const auto& p : parts) EXPECT_NE(text.find(p), std::string::npos) << p << " in:\n" << text;
}

// The line "... accuracy 81.00% (81 of 100) ..." of a predict run.
std::string accuracy_of(const std::string& output) {
  const auto at = output.find("accuracy ");
  return at == std::string::npos ? "" : output.substr(at, output.find(')', at) - at);
}

TEST(OnnxCli, ATrainedModelLeavesAsOnnxAndPredictsTheSame) {
  const fs::path dir = fs::temp_directory_path() / ("gpgpu_onnx_cli_" + std::to_string(::getpid()));
  const std::string data = gpgpu::nn::default_data_dir().string();
  ASSERT_TRUE(fs::exists(data)) << data << " is missing: install dataset-fashion-mnist";
  const auto train = gpgpu_cli(
      "train --backend cpu --net cnn --train-limit 256 --test-limit 10 --epochs 1 -q "
      "--no-plots --out " +
      dir.string());
  ASSERT_EQ(train.status, 0) << train.output;
  const std::string model = (dir / "model").string(), onnx = (dir / "cnn.onnx").string();
  const auto exported = gpgpu_cli("export-onnx " + model + " " + onnx);
  ASSERT_EQ(exported.status, 0) << exported.output;
  expect_contains(exported.output, {"exported", "cnn.onnx", "opset 13"});
  const std::string common = " --data " + data + " --limit 200 --backend cpu --no-plots --out ";
  const auto native = gpgpu_cli("predict " + model + common + (dir / "p1").string());
  const auto imported = gpgpu_cli("predict " + onnx + common + (dir / "p2").string());
  ASSERT_EQ(native.status, 0) << native.output;
  ASSERT_EQ(imported.status, 0) << imported.output;
  EXPECT_FALSE(accuracy_of(native.output).empty()) << native.output;
  // The same layers and parameters (the cnn has no BatchNorm to fold) on the same backend:
  // the same classes, and the normalisation travels in the file's metadata.
  EXPECT_EQ(accuracy_of(imported.output), accuracy_of(native.output)) << imported.output;
  const auto web = gpgpu_cli("export-web " + onnx + " " + (dir / "web").string() + " --samples 5");
  ASSERT_EQ(web.status, 0) << web.output;
  EXPECT_TRUE(fs::exists(dir / "web" / "model.json"));
  const auto from_web =
      gpgpu_cli("predict " + (dir / "web").string() + common + (dir / "p3").string());
  EXPECT_EQ(accuracy_of(from_web.output), accuracy_of(native.output)) << from_web.output;
  fs::remove_all(dir);
}

TEST(OnnxCli, BadFilesAndNamesAreRefused) {
  const fs::path dir = fs::temp_directory_path() / ("gpgpu_onnx_bad_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream junk(dir / "junk.onnx", std::ios::binary);
    junk << "\x08\x07\x12\x05gpgpu not really a model";
  }
  const auto r = gpgpu_cli("predict " + (dir / "junk.onnx").string() + " --data /nonexistent");
  EXPECT_NE(r.status, 0) << r.output;
  expect_contains(r.output, {"junk.onnx"});
  const auto e = gpgpu_cli("export-onnx " + (dir / "junk.onnx").string() + " out.txt");
  EXPECT_NE(e.status, 0) << e.output;
  expect_contains(e.output, {"writes an .onnx file", "out.txt"});
  fs::remove_all(dir);
}

}  // namespace
