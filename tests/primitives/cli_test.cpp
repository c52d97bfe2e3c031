// `gpgpu reduce|scan|sort|argsort|histogram`, run as a user would: .npy in, .npy out,
// results checked against CPU references, bad options refused with clear messages.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>

#include <gtest/gtest.h>

#include "command.hpp"
#include "gpgpu/npy.hpp"
#include "primitives_test_support.hpp"

namespace fs = std::filesystem;

namespace gpgpu::test {
namespace {

CommandResult run_cli(const std::string& arguments) {
  return run_command(
      GPGPU_CLI_PATH, arguments,
      fs::temp_directory_path() / ("gpgpu_prim_cli_" + std::to_string(::getpid()) + ".log"));
}

class PrimitivesCli : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpgpu_prim_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  template <class T>
  std::string save(const std::string& name, std::vector<std::size_t> shape,
                   const std::vector<T>& v) {
    npy::save(path(name), npy::make<T>(std::move(shape), std::span<const T>(v)));
    return path(name);
  }
  template <class T>
  std::vector<T> load(const std::string& name) {
    const auto a = npy::load(path(name));
    const auto v = a.view<T>();
    return {v.begin(), v.end()};
  }
  fs::path dir_;
};

TEST_F(PrimitivesCli, ReducePrintsAndSaves) {
  const auto x = random_ints(3 * 1001, -1000, 1000);
  const std::string in = save<std::int32_t>("x.npy", {1001, 3}, x);
  auto r = run_cli("reduce " + in + " --op max --out " + path("max.npy"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(
      r.output.find("max of 3003 int32 = " + std::to_string(*std::max_element(x.begin(), x.end()))),
      std::string::npos)
      << r.output;
  EXPECT_EQ(load<std::int32_t>("max.npy"),
            std::vector<std::int32_t>{*std::max_element(x.begin(), x.end())});
  r = run_cli("reduce " + in + " --components 3 -o " + path("sums.npy"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto sums = load<std::int32_t>("sums.npy");
  ASSERT_EQ(sums.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    std::int32_t s = 0;
    for (std::size_t i = 0; i < 1001; ++i) s += x[3 * i + k];
    EXPECT_EQ(sums[k], s);
  }
}

TEST_F(PrimitivesCli, ScanSortArgsort) {
  const auto x = random_uints(20011, 1, 1000);
  const std::string in = save<std::uint32_t>("x.npy", {x.size()}, x);
  ASSERT_EQ(run_cli("scan " + in + " --out " + path("s.npy")).status, 0);
  std::vector<std::uint32_t> want(x.size());
  std::inclusive_scan(x.begin(), x.end(), want.begin());
  EXPECT_EQ(load<std::uint32_t>("s.npy"), want);
  ASSERT_EQ(run_cli("scan " + in + " --exclusive --op max --out " + path("m.npy")).status, 0);
  const auto m = load<std::uint32_t>("m.npy");
  std::uint32_t run = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(m[i], run);
    run = std::max(run, x[i]);
  }
  ASSERT_EQ(run_cli("sort " + in + " --descending --out " + path("d.npy")).status, 0);
  auto sorted = x;
  std::sort(sorted.rbegin(), sorted.rend());
  EXPECT_EQ(load<std::uint32_t>("d.npy"), sorted);
  ASSERT_EQ(run_cli("argsort " + in + " --out " + path("a.npy")).status, 0);
  std::vector<std::uint32_t> perm(x.size());
  std::iota(perm.begin(), perm.end(), 0u);
  std::stable_sort(perm.begin(), perm.end(), [&](auto a, auto b) { return x[a] < x[b]; });
  EXPECT_EQ(load<std::uint32_t>("a.npy"), perm);
}

TEST_F(PrimitivesCli, Histogram) {
  auto x = random_floats(50000, 0.0f, 1.0f);
  x[7] = NAN;
  x[9] = 2.0f;
  const std::string in = save<float>("x.npy", {x.size()}, x);
  auto r = run_cli("histogram " + in + " --bins 10 --range 0,1 --out " + path("h.npy"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("above 1, NaN 1"), std::string::npos) << r.output;
  const auto h = load<std::uint32_t>("h.npy");
  ASSERT_EQ(h.size(), 10u);
  std::vector<std::uint32_t> want(10, 0);
  for (float v : x) {
    if (v >= 0.0f && v <= 1.0f)
      ++want[std::min<std::size_t>(static_cast<std::size_t>(v * 10.0f), 9)];
  }
  EXPECT_EQ(h, want);
  const std::string ints = save<std::int32_t>("i.npy", {6}, {3, 4, 4, 9, -2, 3});
  r = run_cli("histogram " + ints + " --out " + path("hi.npy"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(load<std::uint32_t>("hi.npy"),
            (std::vector<std::uint32_t>{1, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1}));
}

TEST_F(PrimitivesCli, BadOptionsAreClearErrorsAndWriteNothing) {
  const std::string in = save<float>("x.npy", {4}, {1, 2, 3, 4});
  auto r = run_cli("reduce " + in + " --op median");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("median"), std::string::npos) << r.output;
  r = run_cli("scan " + in);  // --out is required
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--out"), std::string::npos) << r.output;
  r = run_cli("histogram " + in + " --range 1,0 --out " + path("h.npy"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("lo < hi"), std::string::npos) << r.output;
  r = run_cli("histogram " + in + " --range 0 --out " + path("h.npy"));
  EXPECT_NE(r.status, 0);
  r = run_cli("sort " + path("missing.npy") + " --out " + path("s.npy"));
  EXPECT_NE(r.status, 0);
  r = run_cli("sort " + in + " --out " + path("s.npy") + " --bogus");
  EXPECT_NE(r.status, 0);
  const std::string ints = save<std::int32_t>("i.npy", {3}, {1, 2, 3});
  r = run_cli("histogram " + ints + " --bins 4 --range 0,10 --out " + path("h.npy"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("hi - lo"), std::string::npos) << r.output;
  r = run_cli("reduce " + in + " --components 3");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("not a whole number"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("h.npy")));
  EXPECT_FALSE(fs::exists(path("s.npy")));
  for (const auto& e : fs::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
  }
}

}  // namespace
}  // namespace gpgpu::test
