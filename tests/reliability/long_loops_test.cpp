// Long loops: llvmpipe ends every shader loop silently after a budget of 65535 iterations
// shared by all the loops of one invocation. These tests check that gpgpu measures the cap,
// that ComputeKernel::run_in_passes gets past it, and that every matmul method stays correct
// at k past it (split into passes where one pass cannot take k). On GPUs the cap is absent
// and the same checks hold (the texture methods still split k past GL_MAX_TEXTURE_SIZE).
//
// Matmul tolerance: each output is a float32 dot product of length k, summed in passes of at
// most k_pass terms each (every pass one rounding per term), the passes added in order: in
// all at most k + passes roundings, within (k + 2) u sum_i |a_ri| |b_ic| as in matmul_test.cpp
// (passes <= k / 64, so k + passes < k (1 + 1/64); the bound keeps (k + 2) since the pass sums
// replace terms rather than add to them: each term is rounded at most k_pass + passes times).
// Entries are uniform in [0.5, 1) as in the report that found the defect: every term is
// positive, so a dropped tail shows as a large relative error, never cancelled.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/cpu_matmul.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/matmul.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::MatmulMethod;
namespace test = gpgpu::test;

// Counts its own loop iterations: n per invocation when loops run to their end.
constexpr const char* counting_source = R"(
layout(local_size_x = 8) in;
layout(std430, binding = 0) writeonly buffer Counts { uint counts[]; };
uniform uint n;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  uint count = 0u;
  for (uint t = 0u; t < n; ++t) count += 1u;
  counts[i] = count;
})";

TEST(LongLoops, DeviceInfoReportsTheLoopCap) {
  const auto& info = test::context().info();
  EXPECT_GT(info.loop_probe_iterations, 65535);
  if (info.max_loop_iterations == 0) {
    GTEST_SKIP() << info.renderer << " has no loop cap (as on GPUs)";
  }
  // Mesa llvmpipe: LP_MAX_TGSI_LOOP_ITERATIONS, shared by nested loops.
  EXPECT_EQ(info.max_loop_iterations, 65535) << info.renderer;
  EXPECT_TRUE(info.loop_cap_shared_by_all_loops);
  EXPECT_TRUE(info.loop_runs_to_end(65535));
  EXPECT_FALSE(info.loop_runs_to_end(65536));
  EXPECT_NE(info.to_string().find("shader loop cap"), std::string::npos);
}

// The hazard itself, as a user meets it: a loop past the cap returns a wrong count with no
// error. The reported cap predicts exactly what happens.
TEST(LongLoops, AUserLoopPastTheCapStopsWhereInfoSays) {
  auto& ctx = test::context();
  gpgpu::ComputeKernel count(ctx, counting_source);
  for (const std::uint32_t n : {1000u, 65535u, 100000u}) {
    std::vector<std::uint32_t> counts(16, test::poison_uint);
    count.run({{"counts", gpgpu::out(counts)}, {"n", n}}, counts.size());
    const std::int64_t cap = ctx.info().max_loop_iterations;
    const std::uint32_t expected = cap == 0 || n <= cap ? n : static_cast<std::uint32_t>(cap);
    for (std::size_t i = 0; i < counts.size(); ++i) {
      ASSERT_EQ(counts[i], expected) << "n = " << n << ", invocation " << i;
    }
  }
}

// run_in_passes: the loop's range cut into passes, one dispatch each, every pass with a full
// budget; the kernel carries its sum across passes in a read-write array.
constexpr const char* long_sum_source = R"(
layout(local_size_x = 8) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Sums { float sums[]; };
uniform uint length;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  float sum = gpgpu_pass_begin == 0u ? 0.0 : sums[i];
  for (uint t = gpgpu_pass_begin; t < gpgpu_pass_end; ++t) sum += x[(t + i) % length];
  sums[i] = sum;
})";

TEST(LongLoops, RunInPassesSumsPastTheCap) {
  auto& ctx = test::context();
  gpgpu::ComputeKernel sum(ctx, long_sum_source);
  const std::uint32_t length = 150001;  // past the cap twice, with an uneven last pass
  const auto x = test::random_floats(length, 0.5f, 1.0f);
  std::vector<float> sums(6, test::poison_float());  // read-write: the passes accumulate
  gpgpu::Buffer x_buffer = gpgpu::Buffer::from(ctx, x);
  sum.run_in_passes({{"x", x_buffer}, {"sums", sums}, {"length", length}}, sums.size(), length);
  for (std::size_t i = 0; i < sums.size(); ++i) {
    double exact = 0;
    for (std::size_t t = 0; t < length; ++t) exact += x[(t + i) % length];
    // A sequential float32 sum of `length` positive terms: within length * u * exact.
    EXPECT_NEAR(sums[i], exact, length * test::eps32 * exact) << "invocation " << i;
  }
}

TEST(LongLoops, RunInPassesRefusesWriteOnlyArrays) {
  auto& ctx = test::context();
  gpgpu::ComputeKernel sum(ctx, long_sum_source);
  const std::vector<float> x = test::random_floats(100, 0.5f, 1.0f);
  std::vector<float> sums(4, -7.25f);
  try {
    sum.run_in_passes({{"x", x}, {"sums", gpgpu::out(sums)}, {"length", 100u}}, sums.size(),
                      200000);
    ADD_FAILURE() << "a write-only array was accepted";
  } catch (const gpgpu::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("'sums'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sums, std::vector<float>(4, -7.25f));
}

struct LongK {
  MatmulMethod method;
  int k;
};

class LongKMatmul : public ::testing::TestWithParam<LongK> {};

gpgpu::MatmulOptions options_for(MatmulMethod method) {
  gpgpu::MatmulOptions o;
  o.method = method;
  o.cache_dir = std::filesystem::temp_directory_path() / "gpgpu-long-loops-no-cache";
  return o;
}

// m = 3, n = 5 as in the report (small, so llvmpipe is quick), k past the cap.
TEST_P(LongKMatmul, IsRightPastTheLoopCap) {
  auto& ctx = test::context();
  const auto [method, k] = GetParam();
  const int m = 3, n = 5;
  const auto a = test::random_floats(static_cast<std::size_t>(m) * k, 0.5f, 1.0f);
  const auto b = test::random_floats(static_cast<std::size_t>(k) * n, 0.5f, 1.0f);
  std::vector<double> exact(static_cast<std::size_t>(m) * n);
  gpgpu::cpu::matmul_reference_f64(a, b, exact, m, k, n);
  std::vector<float> c(exact.size(), test::poison_float());
  try {
    gpgpu::matmul(ctx, a, b, c, m, k, n, options_for(method));
  } catch (const gpgpu::UnsupportedError& e) {
    GTEST_SKIP() << e.what();
  } catch (const gpgpu::DeviceLimitError& e) {
    // Only the packed fragment method may meet a limit here: its 4 vec4 outputs need 8 render
    // targets without float ones (their integer twins), past OpenGL ES 3.1's 4.
    EXPECT_EQ(method, MatmulMethod::FragmentPacked) << e.what();
    EXPECT_EQ(e.limit(), "GL_MAX_DRAW_BUFFERS") << e.what();
    return;
  }
  const double bound = (k + 2) * test::eps32;  // relative: every term is positive
  for (std::size_t i = 0; i < c.size(); ++i) {
    ASSERT_LE(std::abs(c[i] - exact[i]), bound * exact[i])
        << gpgpu::to_string(method) << " k=" << k << " C[" << i / n << "][" << i % n
        << "] = " << c[i] << ", float64 " << exact[i];
  }
  // The same through device-resident Buffers.
  auto a_buffer = gpgpu::Buffer::from(ctx, a);
  auto b_buffer = gpgpu::Buffer::from(ctx, b);
  gpgpu::Buffer c_buffer(ctx, gpgpu::ElementType::Float32, c.size());
  c_buffer.upload(std::vector<float>(c.size(), test::poison_float()));
  gpgpu::matmul(ctx, a_buffer, b_buffer, c_buffer, m, k, n, options_for(method));
  const auto from_buffers = c_buffer.to_vector<float>();
  for (std::size_t i = 0; i < c.size(); ++i) {
    ASSERT_LE(std::abs(from_buffers[i] - exact[i]), bound * exact[i])
        << gpgpu::to_string(method) << " (Buffers) k=" << k << " element " << i;
  }
}

std::vector<LongK> long_k_cases() {
  std::vector<LongK> cases;
  for (const auto method : gpgpu::all_matmul_methods()) cases.push_back({method, 70001});
  // The default method far past the cap (the report: relative error 0.69 at k = 140000).
  cases.push_back({MatmulMethod::Auto, 140000});
  // A few passes of split k where textures hold 2048 (es31-minimum): each pass's operands
  // are uploaded while the previous pass may still read them (TransferEngine::note_gpu_use).
  for (int k : {2049, 4097, 6145, 10241}) {
    cases.push_back({MatmulMethod::FragmentNaive, k});
    cases.push_back({MatmulMethod::TransformFeedbackTexture, k});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryMethod, LongKMatmul, ::testing::ValuesIn(long_k_cases()),
                         [](const auto& test_case) {
                           return std::string(gpgpu::to_string(test_case.param.method)) + "_k" +
                                  std::to_string(test_case.param.k);
                         });

}  // namespace
