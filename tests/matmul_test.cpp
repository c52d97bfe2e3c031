// Tests of gpgpu::matmul: every method on random non-square shapes against float64, every
// element checked; device-resident Buffers; argument errors; the autotuner and its cache.
//
// Tolerance. Each output is a float32 dot product of length k, accumulated in some order
// (sequentially per output in every kernel here, with or without fused multiply-add). Any
// such order is within gamma_k * sum_i |a_ri| |b_ic| of the exact result, where
// gamma_k = k u / (1 - k u), u = eps32 = 2^-24 (Higham, Accuracy and Stability of Numerical
// Algorithms, 3.1). We allow (k + 2) * u * sum_i |a_ri| |b_ic|: the 2 covers the
// 1 / (1 - k u) factor (k u < 2^-15 here) and the float64 reference's own error (about
// k * 2^-53 relative), both far below one u. sum_i |a_ri| |b_ic| is the float64 reference
// applied to |A| and |B|. Inputs are uniform in [-1, 1) without zeros; outputs are poisoned
// with NaN first, so an element a kernel forgets to write fails.
#include "gpgpu/matmul.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "cache_support.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/cpu_matmul.hpp"
#include "gpgpu/error.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::MatmulMethod;
using gpgpu::MatmulOptions;
using gpgpu::MatmulTuning;
namespace test = gpgpu::test;

struct Shape {
  int m, k, n;
};

std::string shape_name(Shape s) {
  return std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
}

std::size_t count(int rows, int cols) {
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
}

std::vector<float> absolute(std::vector<float> v) {
  for (float& x : v) x = std::fabs(x);
  return v;
}

// Random A and B of a shape with their float64 product and sum_i |a_ri| |b_ic|.
struct Problem {
  Shape shape;
  std::vector<float> a, b;
  std::vector<double> exact, magnitude;

  explicit Problem(Shape s)
      : shape(s), a(test::random_floats(count(s.m, s.k))), b(test::random_floats(count(s.k, s.n))) {
    exact.resize(count(s.m, s.n));
    magnitude.resize(count(s.m, s.n));
    gpgpu::cpu::matmul_reference_f64(a, b, exact, s.m, s.k, s.n);
    gpgpu::cpu::matmul_reference_f64(absolute(a), absolute(b), magnitude, s.m, s.k, s.n);
  }

  // Checks every element; reports the first few failures with their indices.
  void expect_matches(const std::vector<float>& c, const std::string& what) const {
    ASSERT_EQ(c.size(), exact.size()) << what;
    const double gamma = (shape.k + 2) * test::eps32;
    int failures = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
      const double error = std::abs(static_cast<double>(c[i]) - exact[i]);
      if (!(error <= gamma * magnitude[i])) {  // also catches NaN (poison left unwritten)
        if (++failures <= 5) {
          ADD_FAILURE() << what << " " << shape_name(shape) << ": C[" << i / shape.n << "]["
                        << i % shape.n << "] = " << c[i] << ", float64 " << exact[i] << ", error "
                        << error << " > bound " << gamma * magnitude[i];
        }
      }
    }
    EXPECT_EQ(failures, 0) << what << " " << shape_name(shape) << ": " << failures << " of "
                           << c.size() << " elements outside the bound";
  }
};

const Shape kShapes[] = {
    {1, 1, 1},      {37, 53, 29},    {128, 64, 96},
    {130, 257, 67}, {256, 256, 256},  // a multiple of every tile
    {33, 12, 7},  // k % 4 == 0 (vec4 loads of A) with n % 4 != 0 (scalar B and C)
    {5, 7, 8},    // k % 4 != 0 (scalar A) with n % 4 == 0 (vec4 B and C)
};

// A configuration under test: a method and, optionally, a fixed tuning.
struct Config {
  std::string name;
  MatmulOptions options;
};

// Names the configuration in gtest's messages instead of dumping its bytes.
void PrintTo(const Config& config, std::ostream* out) {
  *out << config.name;
}

MatmulOptions with(MatmulMethod method, std::optional<MatmulTuning> tuning = std::nullopt) {
  MatmulOptions o;
  o.method = method;
  o.tuning = tuning;
  // Never pick up a tuning cached on the machine running the tests.
  o.cache_dir = std::filesystem::temp_directory_path() / "gpgpu-matmul-test-no-cache";
  return o;
}

MatmulTuning tuning(int bm, int bn, int bk, int tm, int tn, bool shared, bool b_texture = false) {
  MatmulTuning t;
  t.b_texture = b_texture;
  t.block_m = bm;
  t.block_n = bn;
  t.block_k = bk;
  t.thread_m = tm;
  t.thread_n = tn;
  t.shared_memory = shared;
  return t;
}

std::vector<Config> configs() {
  std::vector<Config> c = {
      {"auto", with(MatmulMethod::Auto)},
      {"compute_naive", with(MatmulMethod::ComputeNaive)},
      {"compute_tiled", with(MatmulMethod::ComputeTiled)},
      // Every variant of the register-blocked kernel runs on every device: the GPU default
      // (shared memory, 8x8 per invocation, 256 invocations), operands straight from
      // storage, and B through a texture (the llvmpipe default).
      {"register_blocked_gpu_default",
       with(MatmulMethod::ComputeRegisterBlocked, tuning(128, 128, 8, 8, 8, true))},
      {"register_blocked_direct",
       with(MatmulMethod::ComputeRegisterBlocked, tuning(8, 256, 8, 8, 8, false))},
      {"register_blocked_direct_btex",
       with(MatmulMethod::ComputeRegisterBlocked, tuning(8, 256, 8, 8, 16, false, true))},
      {"register_blocked_direct_btex_16x32_16x4",
       with(MatmulMethod::ComputeRegisterBlocked, tuning(16, 32, 8, 16, 4, false, true))},
      // Slices that do not divide among the invocations (128 vec4s of A for 256
      // invocations), 4x4 per invocation, BK 16, rectangular blocks.
      {"register_blocked_64x32x16_4x4",
       with(MatmulMethod::ComputeRegisterBlocked, tuning(64, 32, 16, 4, 4, true))},
      {"register_blocked_64x64x8_4x4",
       with(MatmulMethod::ComputeRegisterBlocked, tuning(64, 64, 8, 4, 4, true))},
      {"register_blocked_direct_32x32_4x8",
       with(MatmulMethod::ComputeRegisterBlocked, tuning(32, 32, 8, 4, 8, false))},
      {"transform_feedback_texture", with(MatmulMethod::TransformFeedbackTexture)},
      {"transform_feedback_vec4", with(MatmulMethod::TransformFeedbackVec4)},
      {"transform_feedback_blocked", with(MatmulMethod::TransformFeedbackBlocked)},
      {"fragment_naive", with(MatmulMethod::FragmentNaive)},
      {"fragment_packed", with(MatmulMethod::FragmentPacked)},
  };
  return c;
}

class MatmulAllConfigs : public ::testing::TestWithParam<Config> {};

// What a device too small for the configuration must name when it refuses it: the tuning's
// work group or shared memory past the device's (validate_matmul_tuning), or the packed
// fragment method's 4 vec4 outputs, which without float render targets need 8 (their
// integer twins at 4 more locations); empty where the device runs it.
std::string refusal_here(const Config& config, const gpgpu::DeviceInfo& info) {
  if (config.options.tuning) {
    try {
      gpgpu::validate_matmul_tuning(*config.options.tuning, info);
    } catch (const gpgpu::ArgumentError&) {
      return "the device";
    }
  }
  if (config.options.method == MatmulMethod::FragmentPacked && !info.has_color_buffer_float() &&
      info.max_draw_buffers < 8) {
    return "GL_MAX_DRAW_BUFFERS";
  }
  return "";
}

// A device that cannot run the configuration must refuse it by name.
bool refused_here(const Config& config, gpgpu::Context& ctx) {
  const std::string named = refusal_here(config, ctx.info());
  if (named.empty()) return false;
  const std::string message =
      test::error_message_of([&] { gpgpu::MatmulPlan plan(ctx, 4, 4, 4, config.options); });
  EXPECT_NE(message.find(named), std::string::npos) << message;
  return true;
}

TEST_P(MatmulAllConfigs, HostArraysMatchFloat64OnEveryShape) {
  auto& ctx = test::context();
  SCOPED_TRACE("seed " + std::to_string(test::seed()));
  if (refused_here(GetParam(), ctx)) return;
  for (const Shape& s : kShapes) {
    const Problem p(s);
    std::vector<float> c(count(s.m, s.n), test::poison_float());
    gpgpu::matmul(ctx, p.a, p.b, c, s.m, s.k, s.n, GetParam().options);
    p.expect_matches(c, GetParam().name);
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, MatmulAllConfigs, ::testing::ValuesIn(configs()),
                         [](const auto& param_info) { return param_info.param.name; });

TEST_P(MatmulAllConfigs, BuffersInAndOut) {
  auto& ctx = test::context();
  SCOPED_TRACE("seed " + std::to_string(test::seed()));
  if (refused_here(GetParam(), ctx)) return;
  const Shape s{37, 53, 29};
  const Problem p(s);
  const auto a = gpgpu::Buffer::from(ctx, p.a);
  const auto b = gpgpu::Buffer::from(ctx, p.b);
  gpgpu::Buffer c(ctx, gpgpu::ElementType::Float32, count(s.m, s.n));
  c.upload(std::vector<float>(c.size(), test::poison_float()));
  gpgpu::MatmulPlan plan(ctx, s.m, s.k, s.n, GetParam().options);
  plan.run(a, b, c);
  p.expect_matches(c.to_vector<float>(), GetParam().name + " on Buffers");
}

TEST(Matmul, AutoResolvesToAnImplementedMethodAndItsTuningIsValid) {
  auto& ctx = test::context();
  gpgpu::MatmulPlan plan(ctx, 3, 4, 5, with(MatmulMethod::Auto));
  EXPECT_NE(plan.method(), MatmulMethod::Auto);
  EXPECT_TRUE(gpgpu::matmul_method_implemented(plan.method()));
  EXPECT_NO_THROW(gpgpu::validate_matmul_tuning(plan.tuning(), ctx.info()));
}

TEST(Matmul, BuffersStayOnTheDeviceAndChain) {
  auto& ctx = test::context();
  SCOPED_TRACE("seed " + std::to_string(test::seed()));
  // D = (A B) E with the intermediate never leaving the device.
  const Shape first{70, 45, 38}, second{70, 38, 21};
  const Problem p(first);
  const auto e = test::random_floats(count(second.k, second.n));
  const auto device_a = gpgpu::Buffer::from(ctx, p.a);
  const auto device_b = gpgpu::Buffer::from(ctx, p.b);
  const auto device_e = gpgpu::Buffer::from(ctx, e);
  gpgpu::Buffer device_c(ctx, gpgpu::ElementType::Float32, count(first.m, first.n));
  gpgpu::Buffer device_d(ctx, gpgpu::ElementType::Float32, count(second.m, second.n));
  device_c.upload(std::vector<float>(device_c.size(), test::poison_float()));
  device_d.upload(std::vector<float>(device_d.size(), test::poison_float()));

  gpgpu::MatmulPlan plan_c(ctx, first.m, first.k, first.n, with(MatmulMethod::Auto));
  plan_c.run(device_a, device_b, device_c);
  gpgpu::matmul(ctx, device_c, device_e, device_d, second.m, second.k, second.n,
                with(MatmulMethod::Auto));

  const auto c = device_c.to_vector<float>();
  p.expect_matches(c, "Buffer C = A B");
  // The second product is checked against float64 applied to the float32 C the GPU made.
  std::vector<double> exact(count(second.m, second.n)), magnitude(exact.size());
  gpgpu::cpu::matmul_reference_f64(c, e, exact, second.m, second.k, second.n);
  gpgpu::cpu::matmul_reference_f64(absolute(c), absolute(e), magnitude, second.m, second.k,
                                   second.n);
  const auto d = device_d.to_vector<float>();
  const double gamma = (second.k + 2) * test::eps32;
  for (std::size_t i = 0; i < d.size(); ++i) {
    ASSERT_LE(std::abs(d[i] - exact[i]), gamma * magnitude[i]) << "D element " << i;
  }
}

TEST(Matmul, LargerBuffersAreAccepted) {
  auto& ctx = test::context();
  const Problem p({9, 10, 11});
  auto a = p.a;
  a.resize(a.size() + 7, 123.0f);  // trailing elements must be ignored
  const auto device_a = gpgpu::Buffer::from(ctx, a);
  const auto device_b = gpgpu::Buffer::from(ctx, p.b);
  gpgpu::Buffer device_c(ctx, gpgpu::ElementType::Float32, count(9, 11) + 3);
  device_c.upload(std::vector<float>(device_c.size(), test::poison_float()));
  gpgpu::matmul(ctx, device_a, device_b, device_c, 9, 10, 11, with(MatmulMethod::Auto));
  auto c = device_c.to_vector<float>();
  EXPECT_TRUE(std::isnan(c.back())) << "matmul wrote past m*n";
  c.resize(count(9, 11));
  p.expect_matches(c, "oversized Buffers");
}

TEST(Matmul, WrongHostSizesThrowSizeMismatchAndLeaveCUntouched) {
  auto& ctx = test::context();
  const int m = 6, k = 17, n = 5;
  const auto a = test::random_floats(count(m, k));
  const auto b = test::random_floats(count(k, n));
  std::vector<float> c(count(m, n), test::poison_float());
  const auto short_a = std::vector<float>(a.begin(), a.end() - 1);
  const auto long_b = [&] {
    auto v = b;
    v.push_back(1.0f);
    return v;
  }();
  std::vector<float> short_c(count(m, n) - 1, test::poison_float());
  EXPECT_THROW(gpgpu::matmul(ctx, short_a, b, c, m, k, n), gpgpu::SizeMismatchError);
  EXPECT_THROW(gpgpu::matmul(ctx, a, long_b, c, m, k, n), gpgpu::SizeMismatchError);
  EXPECT_THROW(gpgpu::matmul(ctx, a, b, short_c, m, k, n), gpgpu::SizeMismatchError);
  EXPECT_THROW(gpgpu::matmul(ctx, a, b, c, m, k + 1, n), gpgpu::SizeMismatchError);
  EXPECT_THROW(gpgpu::matmul(ctx, a, b, c, 0, k, n), gpgpu::SizeMismatchError);
  EXPECT_THROW(gpgpu::matmul(ctx, a, b, c, m, -3, n), gpgpu::SizeMismatchError);
  for (float x : c) ASSERT_TRUE(std::isnan(x)) << "c was written by a call that threw";
  for (float x : short_c) ASSERT_TRUE(std::isnan(x));
  try {
    gpgpu::matmul(ctx, short_a, b, c, m, k, n);
  } catch (const gpgpu::SizeMismatchError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("A has 101"), std::string::npos) << message;
    EXPECT_NE(message.find("6x17 = 102"), std::string::npos) << message;
  }
}

TEST(Matmul, BadBuffersThrowBeforeRunning) {
  auto& ctx = test::context();
  const int m = 4, k = 8, n = 4;
  const auto a = gpgpu::Buffer::from(ctx, test::random_floats(count(m, k)));
  const auto b = gpgpu::Buffer::from(ctx, test::random_floats(count(k, n)));
  gpgpu::Buffer c(ctx, gpgpu::ElementType::Float32, count(m, n));
  gpgpu::Buffer small_c(ctx, gpgpu::ElementType::Float32, count(m, n) - 1);
  gpgpu::Buffer int_c(ctx, gpgpu::ElementType::Int32, count(m, n));
  gpgpu::Buffer a_alias(ctx, gpgpu::ElementType::Float32, count(m, k));
  EXPECT_THROW(gpgpu::matmul(ctx, a, b, small_c, m, k, n), gpgpu::SizeMismatchError);
  EXPECT_THROW(gpgpu::matmul(ctx, b, b, c, m, k + 1, n), gpgpu::SizeMismatchError);
  EXPECT_THROW(gpgpu::matmul(ctx, a, b, int_c, m, k, n), gpgpu::TypeMismatchError);
  EXPECT_THROW(gpgpu::matmul(ctx, a_alias, b, a_alias, 4, 8, 4), gpgpu::ArgumentError);
  gpgpu::Buffer empty;
  EXPECT_THROW(gpgpu::matmul(ctx, a, empty, c, m, k, n), gpgpu::ArgumentError);
}

TEST(Matmul, MethodNamesRoundTrip) {
  for (MatmulMethod method : gpgpu::all_matmul_methods()) {
    const auto parsed = gpgpu::parse_matmul_method(gpgpu::to_string(method));
    ASSERT_TRUE(parsed.has_value()) << gpgpu::to_string(method);
    EXPECT_EQ(*parsed, method);
  }
  EXPECT_EQ(gpgpu::parse_matmul_method("auto"), MatmulMethod::Auto);
  EXPECT_FALSE(gpgpu::parse_matmul_method("fastest").has_value());
}

TEST(Matmul, InvalidTuningsAreRejectedNamingTheField) {
  auto& ctx = test::context();
  auto expect_rejected = [&](MatmulTuning t, const std::string& field) {
    try {
      gpgpu::validate_matmul_tuning(t, ctx.info());
      ADD_FAILURE() << "accepted " << t.to_string();
    } catch (const gpgpu::ArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  expect_rejected(tuning(64, 64, 8, 6, 4, true), "thread_m");
  expect_rejected(tuning(64, 64, 8, 4, 32, true), "thread_n");
  expect_rejected(tuning(64, 64, 8, 4, 4, true, true), "b_texture");
  expect_rejected(tuning(60, 64, 8, 8, 4, true), "block_m");
  expect_rejected(tuning(64, 64, 6, 4, 4, true), "block_k");
  expect_rejected(tuning(512, 512, 8, 4, 4, true), "invocations");
  // 64 invocations (within every device's) of 32 x 32 blocks, BK 512: 272 KB of shared memory.
  expect_rejected(tuning(32, 32, 512, 4, 4, true), "shared memory");
  EXPECT_THROW(
      gpgpu::MatmulPlan(ctx, 8, 8, 8,
                        with(MatmulMethod::ComputeRegisterBlocked, tuning(64, 64, 6, 4, 4, true))),
      gpgpu::ArgumentError);
}

// A fresh directory under the system temp dir, removed at the end of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("gpgpu-matmul-cache-" + std::to_string(test::seed()) + "-" +
            std::to_string(std::random_device{}()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

TEST(MatmulAutotune, PicksACandidateCachesItAndAutoThenComputesCorrectly) {
  auto& ctx = test::context();
  SCOPED_TRACE("seed " + std::to_string(test::seed()));
  TempDir dir;
  gpgpu::AutotuneOptions options;
  options.cache_dir = dir.path;
  options.repeats = 1;

  const auto candidates = gpgpu::matmul_tuning_candidates(ctx.info());
  ASSERT_FALSE(candidates.empty());
  EXPECT_LE(candidates.size(), 8u);

  const auto tuned = gpgpu::autotune_matmul(ctx, 96, options);
  EXPECT_FALSE(tuned.from_cache);
  EXPECT_EQ(tuned.candidates.size(), candidates.size());
  EXPECT_GT(tuned.gflops, 0.0);
  EXPECT_NE(std::find(candidates.begin(), candidates.end(), tuned.best), candidates.end());
  ASSERT_TRUE(std::filesystem::exists(dir.path / "matmul_tuning.json"));
  EXPECT_EQ(tuned.cache_file, dir.path / "matmul_tuning.json");

  const auto cached = gpgpu::cached_matmul_tuning(ctx, dir.path);
  ASSERT_TRUE(cached.has_value());
  EXPECT_EQ(*cached, tuned.best);

  const auto again = gpgpu::autotune_matmul(ctx, 96, options);
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(again.best, tuned.best);

  // Auto (and an explicit method without a tuning) now use the cached choice.
  MatmulOptions auto_options;
  auto_options.cache_dir = dir.path;
  const Shape s{130, 257, 67};
  gpgpu::MatmulPlan plan(ctx, s.m, s.k, s.n, auto_options);
  // The cached tiles, with the split of k that Auto chooses for this shape on top (GPUs
  // split k when C has fewer tiles than the device has compute units).
  MatmulTuning expected = tuned.best;
  expected.split_k = plan.tuning().split_k;
  EXPECT_EQ(plan.tuning(), expected);
  EXPECT_GE(plan.tuning().split_k, 1);
  const Problem p(s);
  std::vector<float> c(count(s.m, s.n), test::poison_float());
  plan.run(p.a, p.b, c);
  p.expect_matches(c, "autotuned " + tuned.best.to_string());
}

TEST(MatmulAutotune, CacheDirectoryComesFromTheEnvironment) {
  TempDir dir;
  const char* old = std::getenv("GPGPU_CACHE_DIR");
  const std::string saved = old ? old : "";
  ::setenv("GPGPU_CACHE_DIR", dir.path.c_str(), 1);
  EXPECT_EQ(gpgpu::matmul_cache_file(), dir.path / "matmul_tuning.json");
  EXPECT_EQ(gpgpu::matmul_cache_file("/elsewhere"),
            std::filesystem::path("/elsewhere/matmul_tuning.json"));
  if (old) {
    ::setenv("GPGPU_CACHE_DIR", saved.c_str(), 1);
  } else {
    ::unsetenv("GPGPU_CACHE_DIR");
  }
}

TEST(MatmulAutotune, ACorruptCacheIsReportedNotOverwritten) {
  auto& ctx = test::context();
  TempDir dir;
  { std::ofstream(dir.path / "matmul_tuning.json") << "{ this is not json"; }
  gpgpu::AutotuneOptions options;
  options.cache_dir = dir.path;
  EXPECT_THROW(gpgpu::autotune_matmul(ctx, 32, options), gpgpu::FormatError);
  std::ifstream in(dir.path / "matmul_tuning.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "{ this is not json");
}

TEST(MatmulAutotune, WithTheCacheOffNothingIsReadOrWritten) {
  auto& ctx = test::context();
  TempDir dir;
  gpgpu::AutotuneOptions options;
  options.cache_dir = dir.path;
  options.repeats = 1;
  gpgpu::autotune_matmul(ctx, 32, options);
  ASSERT_TRUE(gpgpu::cached_matmul_tuning(ctx, dir.path).has_value());
  const gpgpu::test::ScopedEnv off("GPGPU_CACHE", "off");
  EXPECT_FALSE(gpgpu::cached_matmul_tuning(ctx, dir.path).has_value());
  EXPECT_FALSE(gpgpu::autotune_matmul(ctx, 32, options).from_cache);
  TempDir empty;
  options.cache_dir = empty.path;
  gpgpu::autotune_matmul(ctx, 32, options);
  EXPECT_FALSE(std::filesystem::exists(empty.path / "matmul_tuning.json"));
}

// An entry measured under another driver (its GL version string) is tuned again.
TEST(MatmulAutotune, AnEntryOfAnotherDriverIsIgnored) {
  auto& ctx = test::context();
  TempDir dir;
  gpgpu::AutotuneOptions options;
  options.cache_dir = dir.path;
  options.repeats = 1;
  gpgpu::autotune_matmul(ctx, 32, options);
  const auto file = dir.path / "matmul_tuning.json";
  std::string text;
  {
    std::ifstream in(file);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const auto at = text.find(ctx.info().version);
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, ctx.info().version.size(), "OpenGL ES 3.2 another driver 0.1");
  std::ofstream(file, std::ios::trunc) << text;
  EXPECT_FALSE(gpgpu::cached_matmul_tuning(ctx, dir.path).has_value());
  EXPECT_FALSE(gpgpu::autotune_matmul(ctx, 32, options).from_cache);
  EXPECT_TRUE(gpgpu::cached_matmul_tuning(ctx, dir.path).has_value());  // retuned and stored
}

}  // namespace
