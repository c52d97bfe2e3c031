// The `gpgpu` command-line tool, run as a user would: .npy files in, .npy files out.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "command.hpp"
#include "gpgpu/npy.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using gpgpu::npy::Array;

namespace {

gpgpu::test::CommandResult run_cli(const std::string& arguments) {
  return gpgpu::test::run_command(
      GPGPU_CLI_PATH, arguments,
      fs::temp_directory_path() / ("gpgpu_cli_" + std::to_string(::getpid()) + ".log"));
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpgpu_cli_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

const std::string data_dir = GPGPU_TEST_DATA_DIR;

}  // namespace

TEST_F(CliTest, InfoDescribesTheDevice) {
  auto r = run_cli("info");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("renderer"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("max compute work-group count"), std::string::npos);
  auto j = run_cli("info --json");
  ASSERT_EQ(j.status, 0) << j.output;
  EXPECT_NE(j.output.find("\"max_shader_storage_block_size\""), std::string::npos);
}

TEST_F(CliTest, RunsSaxpyOverNpyFilesKeepingTheShape) {
  const auto x = gpgpu::test::random_floats(3 * 50);
  const auto y = gpgpu::test::random_floats(3 * 50);
  gpgpu::npy::save(path("x.npy"), gpgpu::npy::make<float>({3, 50}, x));
  gpgpu::npy::save(path("y.npy"), gpgpu::npy::make<float>({3, 50}, y));
  auto r = run_cli("run " + data_dir + "/saxpy.comp x=" + path("x.npy") + " y=" + path("y.npy") +
                   " --out y=" + path("out.npy") + " --set alpha=1.5 --profile");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("profile"), std::string::npos) << r.output;
  Array out = gpgpu::npy::load(path("out.npy"));
  ASSERT_EQ(out.shape, (std::vector<std::size_t>{3, 50}));
  auto values = out.view<float>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    // One multiply and one add, each rounded once: |err| <= 2 eps32 (|1.5 x| + |y|).
    const double exact = 1.5 * double(x[i]) + double(y[i]);
    const double bound = 2 * gpgpu::test::eps32 * (std::abs(1.5 * x[i]) + std::abs(y[i]));
    ASSERT_NEAR(values[i], exact, bound) << "element " << i;
  }
}

TEST_F(CliTest, CreatesIntegerOutputsSizedFromTheInputs) {
  const auto a = gpgpu::test::random_ints(77, -40000, 40000);
  const auto b = gpgpu::test::random_ints(77, -40000, 40000);
  gpgpu::npy::save(path("a.npy"), gpgpu::npy::make<std::int32_t>({77}, a));
  gpgpu::npy::save(path("b.npy"), gpgpu::npy::make<std::int32_t>({77}, b));
  auto r =
      run_cli("run " + data_dir + "/int_ops.comp a=" + path("a.npy") + " b=" + path("b.npy") +
              " --out s=" + path("s.npy") + " --out m=" + path("m.npy") + " --set mask=0xFFF0F");
  ASSERT_EQ(r.status, 0) << r.output;
  Array s = gpgpu::npy::load(path("s.npy"));
  Array m = gpgpu::npy::load(path("m.npy"));
  ASSERT_EQ(s.shape, (std::vector<std::size_t>{77, 2}));  // ivec2 per element
  ASSERT_EQ(m.shape, (std::vector<std::size_t>{77}));
  auto sv = s.view<std::int32_t>();
  auto mv = m.view<std::uint32_t>();
  for (std::size_t i = 0; i < a.size(); ++i) {
    // Integers are exact; the product wraps modulo 2^32 as GLSL int does.
    EXPECT_EQ(sv[2 * i], a[i] + b[i]);
    EXPECT_EQ(sv[2 * i + 1], static_cast<std::int32_t>(static_cast<std::uint32_t>(a[i]) *
                                                       static_cast<std::uint32_t>(b[i])));
    EXPECT_EQ(mv[i], static_cast<std::uint32_t>(a[i]) & 0xFFF0Fu);
  }
}

TEST_F(CliTest, ExplainsBadInput) {
  gpgpu::npy::save(path("x.npy"), gpgpu::npy::make<float>({4}, gpgpu::test::random_floats(4)));
  gpgpu::npy::save(path("i.npy"),
                   gpgpu::npy::make<std::int32_t>({4}, gpgpu::test::random_ints(4, 1, 9)));
  auto unknown = run_cli("run " + data_dir + "/saxpy.comp z=" + path("x.npy"));
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.output.find("'z' matches no variable"), std::string::npos) << unknown.output;
  EXPECT_NE(unknown.output.find("alpha"), std::string::npos) << "should list the variables";

  auto wrong_type = run_cli("run " + data_dir + "/saxpy.comp x=" + path("i.npy") +
                            " y=" + path("x.npy") + " --set alpha=1");
  EXPECT_EQ(wrong_type.status, 1);
  EXPECT_NE(wrong_type.output.find("int32"), std::string::npos) << wrong_type.output;

  auto bad_value = run_cli("run " + data_dir + "/saxpy.comp x=" + path("x.npy") +
                           " y=" + path("x.npy") + " --set alpha=abc");
  EXPECT_EQ(bad_value.status, 1);
  EXPECT_NE(bad_value.output.find("'abc' is not a float"), std::string::npos) << bad_value.output;

  std::ofstream(path("bad.npy")) << "not a numpy file at all";
  auto malformed = run_cli("run " + data_dir + "/saxpy.comp x=" + path("bad.npy"));
  EXPECT_EQ(malformed.status, 1);
  EXPECT_NE(malformed.output.find("bad.npy"), std::string::npos) << malformed.output;

  auto missing =
      run_cli("run " + data_dir + "/saxpy.comp x=" + path("x.npy") + " --out y=" + path("y.npy"));
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.output.find("alpha"), std::string::npos) << missing.output;
}

TEST_F(CliTest, TracesAStridedWriteAndDrawsIt) {
  // 4096 invocations write a 64 x 64 matrix column by column: a warp's 32 writes are 64
  // elements apart, so each lands in its own 32-byte sector (32 per request, ideal 4).
  auto r = run_cli("trace " + data_dir +
                   "/strided_write.comp --buffer dst --size 4096 --set COLS=64 --out dst=" +
                   path("dst.npy") + " --png " + path("access.png"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("4096 accesses"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("12% efficient"), std::string::npos) << r.output;
  ASSERT_TRUE(fs::exists(path("access.png")));
  std::ifstream png(path("access.png"), std::ios::binary);
  char magic[8] = {};
  png.read(magic, 8);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
  // The instrumented kernel still computes what the plain one does.
  Array dst = gpgpu::npy::load(path("dst.npy"));
  auto values = dst.view<float>();
  ASSERT_EQ(values.size(), 4096u);
  for (std::size_t i = 0; i < 4096; ++i) {
    const std::size_t row = i % 64, col = i / 64;
    ASSERT_EQ(values[row * 64 + col], static_cast<float>(i)) << "invocation " << i;
  }
}
