// The `gpgpu` command line as a careless or hostile user drives it: every mistake must give
// exit status 1 and a message naming the option and what was expected, before any work runs
// and without touching any output file.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "command.hpp"
#include "gpgpu/npy.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

using gpgpu::test::CommandResult;
using gpgpu::test::run_command;

class CliMisuse : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpgpu_cli_misuse_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const auto x = gpgpu::test::random_floats(1000);
    const auto y = gpgpu::test::random_floats(1000);
    gpgpu::npy::save(path("x.npy"), gpgpu::npy::make<float>({1000}, x));
    gpgpu::npy::save(path("y.npy"), gpgpu::npy::make<float>({1000}, y));
    gpgpu::npy::save(path("y5.npy"), gpgpu::npy::make<float>({5}, gpgpu::test::random_floats(5)));
    write_file("ints.comp", R"(
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer O { int o[]; };
uniform int k;
uniform uint m;
void main() { o[0] = k + int(m); })");
    gpgpu::npy::save(path("o.npy"),
                     gpgpu::npy::make<std::int32_t>({1}, std::vector<std::int32_t>{7}));
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write_file(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
  }
  std::string saxpy() const { return std::string(GPGPU_EXAMPLE_KERNELS) + "/saxpy.comp"; }
  std::string saxpy_inputs() const {
    return " x=" + path("x.npy") + " y=" + path("y.npy") + " --set alpha=1.5";
  }

  CommandResult run(const std::string& arguments) const {
    return run_command(GPGPU_CLI_PATH, arguments, path("log.txt"));
  }
  // Fails unless the command exits 1 with `expected` in its message.
  void expect_refused(const std::string& arguments, const std::string& expected) const {
    const auto r = run(arguments);
    EXPECT_EQ(r.status, 1) << arguments << "\n" << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos)
        << arguments << "\nexpected: " << expected << "\ngot: " << r.output;
  }
  // The directory holds exactly these files (no temporaries left behind).
  void expect_files(std::vector<std::string> names) const {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(dir_)) found.push_back(entry.path().filename());
    std::sort(found.begin(), found.end());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(found, names);
  }

  fs::path dir_;
};

TEST_F(CliMisuse, SetParsesIntegersStrictly) {
  const std::string ints =
      "run " + path("ints.comp") + " o=" + path("o.npy") + " --out o=" + path("r.npy");
  expect_refused(ints + " --set k=010 --set m=1", "--set k (int k): '010' has a leading zero");
  expect_refused(ints + " --set k=4294967297 --set m=1",
                 "'4294967297' is out of range for an int (-2147483648 to 2147483647)");
  expect_refused(ints + " --set k=2147483648 --set m=1", "'2147483648' is out of range for an int");
  expect_refused(ints + " --set k=1 --set m=-1",
                 "--set m (uint m): '-1' is negative, but it is declared uint");
  expect_refused(ints + " --set k=1.5 --set m=1", "'1.5' is not an int value");
  expect_refused(ints + " --set k=1 --set m=4294967296", "'4294967296' is out of range for a uint");
  expect_refused(
      "run " + saxpy() + " x=" + path("x.npy") + " y=" + path("y.npy") + " --set alpha=1e50",
      "'1e50' is out of range for a float");
  expect_refused(
      "run " + saxpy() + " x=" + path("x.npy") + " y=" + path("y.npy") + " --set alpha=nan",
      "'nan' is not a finite float");
  expect_files({"o.npy", "ints.comp", "x.npy", "y.npy", "y5.npy"});
  // The extremes and hexadecimal are accepted, and exact.
  const auto r = run(ints + " --set k=-2147483648 --set m=0x7FFFFFFF");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto o = gpgpu::npy::load(path("r.npy"));
  EXPECT_EQ(o.view<std::int32_t>()[0], -1);  // -2^31 + (2^31 - 1)
}

TEST_F(CliMisuse, OutputPathsAreCheckedBeforeRunning) {
  expect_refused("run " + saxpy() + saxpy_inputs() + " --out y=" + path("missing/y.npy"),
                 "the directory '" + path("missing") + "' does not exist (checked before running)");
  expect_refused("run " + saxpy() + saxpy_inputs() + " --out y=" + dir_.string(),
                 "that is a directory");
  // Not writable even by root.
  expect_refused("run " + saxpy() + saxpy_inputs() + " --out y=/proc/gpgpu_y.npy",
                 "--out y /proc/gpgpu_y.npy: cannot write there");
  expect_refused(
      "run " + saxpy() + saxpy_inputs() + " --out y=" + path("a.npy") + " --out y=" + path("b.npy"),
      "--out y is given twice");
  expect_files({"o.npy", "ints.comp", "x.npy", "y.npy", "y5.npy"});
}

// A failure after the first output was ready must leave every output as it was: the second
// path is bad, or the run itself fails.
TEST_F(CliMisuse, OutputsAreWrittenAllOrNone) {
  write_file("two.comp", R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer A { float a[]; };
layout(std430, binding = 2) writeonly buffer B { float b[]; };
uniform uint scale;
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) { a[i] = float(scale) * x[i]; b[i] = -x[i]; }
})");
  const std::string base = "run " + path("two.comp") + " x=" + path("x.npy");
  expect_refused(base + " --set scale=1 --out a=" + path("a.npy") + " --out b=" + path("no/b.npy"),
                 "does not exist");
  expect_files({"o.npy", "ints.comp", "two.comp", "x.npy", "y.npy", "y5.npy"});
  // An existing output survives a run that fails (a bad --set is found after the kernel
  // compiled and the outputs were reserved).
  std::ofstream(path("a.npy")) << "previous contents";
  expect_refused(base + " --set scale=-1 --out a=" + path("a.npy") + " --out b=" + path("b.npy"),
                 "'-1' is negative");
  std::ifstream kept(path("a.npy"));
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>()),
            "previous contents");
  expect_files({"a.npy", "o.npy", "ints.comp", "two.comp", "x.npy", "y.npy", "y5.npy"});
  // And a good run replaces both, whole.
  const auto r =
      run(base + " --set scale=1 --out a=" + path("a.npy") + " --out b=" + path("b.npy"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto x = gpgpu::npy::load(path("x.npy"));
  const auto a = gpgpu::npy::load(path("a.npy"));
  const auto b = gpgpu::npy::load(path("b.npy"));
  ASSERT_EQ(a.element_count(), x.element_count());
  for (std::size_t i = 0; i < x.element_count(); ++i) {
    ASSERT_EQ(a.view<float>()[i], x.view<float>()[i]) << i;  // limit = 1: copies are exact
    ASSERT_EQ(b.view<float>()[i], -x.view<float>()[i]) << i;
  }
  expect_files({"a.npy", "b.npy", "o.npy", "ints.comp", "two.comp", "x.npy", "y.npy", "y5.npy"});
}

TEST_F(CliMisuse, AmbiguousInputIsRefused) {
  const std::string run_saxpy = "run " + saxpy() + saxpy_inputs();
  expect_refused(run_saxpy + " --size 10,10,10,10", "--size takes 1 to 3 numbers");
  expect_refused(run_saxpy + " --size 100 --groups 2", "give either --size");
  expect_refused(run_saxpy + " --size 0", "--size must not contain 0");
  expect_refused("run " + saxpy() + " x=" + path("x.npy") + " x=" + path("y.npy") +
                     " y=" + path("y.npy") + " --set alpha=1",
                 "input 'x' is given twice");
  expect_refused(run_saxpy + " --set alpha=2", "argument 'alpha' is given twice");
  expect_refused(run_saxpy + " --repeat 0", "--repeat must be at least 1");
  expect_refused(
      "run " + saxpy() + " x=" + path("x.npy") + " y=" + path("y5.npy") + " --set alpha=1",
      "the input arrays disagree in length (x: 1000, y: 5 elements), so the number "
      "of work items is ambiguous; give it with --size N");
}

TEST_F(CliMisuse, SizePastEveryArrayIsRefused) {
  expect_refused("run " + saxpy() + saxpy_inputs() + " --size 100000000",
                 "--size asks for 100000000 work items, but the longest array, 'x', has 1000 "
                 "elements");
  // A kernel that bounds its own accesses may ask for more, explicitly.
  write_file("bounded.comp", R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Y { float y[]; };
void main() { uint i = gpgpu_index(); if (i < uint(y.length())) y[i] = 2.0 * y[i]; })");
  const auto r = run("run " + path("bounded.comp") + " y=" + path("y.npy") + " --size 5000 " +
                     "--unchecked-size --out y=" + path("y2.npy"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto before = gpgpu::npy::load(path("y.npy"));
  const auto after = gpgpu::npy::load(path("y2.npy"));
  ASSERT_EQ(after.element_count(), before.element_count());
  for (std::size_t i = 0; i < before.element_count(); ++i) {
    ASSERT_EQ(after.view<float>()[i], 2.0f * before.view<float>()[i]) << i;  // doubling is exact
  }
}

TEST_F(CliMisuse, BadDefinesAreNamed) {
  expect_refused("run " + saxpy() + saxpy_inputs() + " -D 1BAD=2",
                 "define '1BAD' is not a valid macro name");
  expect_refused("run " + saxpy() + saxpy_inputs() + " -D GL_X=2", "define 'GL_X' is reserved");
}

TEST_F(CliMisuse, ProfileSaysWhatItMeasured) {
  const auto r = run("run " + saxpy() + saxpy_inputs() + " --profile --repeat 3");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("fenced with glFinish"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("GPU time 0.000"), std::string::npos) << r.output;
  if (gpgpu::test::context().info().is_software) {
    EXPECT_NE(r.output.find("timer queries do not see shader work"), std::string::npos) << r.output;
  }
}

TEST_F(CliMisuse, TimeoutStopsARunawayRunWithoutWriting) {
  // Every invocation spins through llvmpipe's whole loop budget (on a GPU: 2^28 dependent
  // steps, most of a second), far longer than the 1 ms allowed.
  write_file("spin.comp", R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Y { float y[]; };
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  float v = y[i];
  for (uint t = 0u; t < 268435456u; ++t) v = v * 0.999 + 0.001;
  y[i] = v;
})");
  expect_refused("run " + path("spin.comp") + " y=" + path("y.npy") +
                     " --timeout 0.001 --out y=" + path("spun.npy"),
                 "ContextOptions::timeout");
  expect_files({"o.npy", "ints.comp", "spin.comp", "x.npy", "y.npy", "y5.npy"});
}

TEST_F(CliMisuse, InfoShowsTheLoopCap) {
  const auto r = run("info");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("shader loop cap"), std::string::npos) << r.output;
  const auto j = run("info --json");
  ASSERT_EQ(j.status, 0) << j.output;
  EXPECT_NE(j.output.find("\"max_loop_iterations\""), std::string::npos) << j.output;
}

}  // namespace
