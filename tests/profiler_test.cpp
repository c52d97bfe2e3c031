// Profiler: scopes count and time what runs inside them (GPU timestamps where the device has
// them, the fenced wall clock otherwise), nest, coexist with ComputeKernel::set_timing, and
// leave the kernels' results untouched. No assertion here is about speed.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/profiler.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::Profiler;
using gpgpu::ProfilerOptions;
using gpgpu::TimingSource;
using gpgpu::test::context;
using gpgpu::test::random_floats;

constexpr const char* kScale = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
uniform float alpha;
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] = alpha * x[i]; })";

// Runs y = alpha * x on fresh data and checks every element (profiling must not disturb).
void run_and_check(gpgpu::ComputeKernel& kernel) {
  const auto x = random_floats(4099);
  std::vector<float> y(x.size(), gpgpu::test::poison_float());
  const float alpha = 3.0f;
  kernel.run({{"x", x}, {"y", gpgpu::out(y)}, {"alpha", alpha}});
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], alpha * x[i]) << "element " << i;
}

bool has_gpu_timer() {
  return Profiler(context()).timing_source() == TimingSource::TimerQueries;
}

TEST(Profiler, CountsAndTimesEachName) {
  gpgpu::ComputeKernel kernel(context(), kScale, {}, "scale");
  Profiler prof(context());
  for (int i = 0; i < 3; ++i) {
    auto scope = prof.scope("scale");
    run_and_check(kernel);
  }
  for (int i = 0; i < 2; ++i) {
    auto scope = prof.scope("twice");
    run_and_check(kernel);
    run_and_check(kernel);
  }
  const auto all = prof.stats();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "scale");
  EXPECT_EQ(all[1].name, "twice");
  const auto s = prof.stats("scale");
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.wall_samples, 3u);
  EXPECT_GT(s.wall_median_ms, 0.0);
  EXPECT_GE(s.wall_total_ms, s.wall_median_ms);
  EXPECT_LE(s.wall_min_ms, s.wall_median_ms);
  EXPECT_GE(s.wall_max_ms, s.wall_median_ms);
  if (prof.timing_source() == TimingSource::TimerQueries) {
    EXPECT_EQ(s.gpu_samples + s.disjoint, 3u);
    if (s.gpu_samples > 0) {
      EXPECT_GT(s.gpu_median_ms, 0.0);
      EXPECT_GE(s.gpu_total_ms, s.gpu_median_ms);
    }
    EXPECT_NE(prof.timing_description().find("GPU timestamps"), std::string::npos);
  } else {
    EXPECT_EQ(s.gpu_samples, 0u);
  }
  EXPECT_EQ(prof.stats("twice").count, 2u);
  EXPECT_THROW(prof.stats("never"), gpgpu::ArgumentError);
}

TEST(Profiler, WallClockFallbackSaysSo) {
  gpgpu::ComputeKernel kernel(context(), kScale);
  Profiler prof(context(), ProfilerOptions{.use_timer_queries = false});
  EXPECT_EQ(prof.timing_source(), TimingSource::FencedWallClock);
  EXPECT_NE(prof.timing_description().find("wall clock"), std::string::npos);
  {
    auto scope = prof.scope("k");
    run_and_check(kernel);
  }
  const auto s = prof.stats("k");
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.gpu_samples, 0u);
  EXPECT_EQ(s.gpu_median_ms, -1.0);
  EXPECT_GT(s.wall_median_ms, 0.0);
  EXPECT_NE(prof.table().find("wall clock"), std::string::npos);
}

TEST(Profiler, ScopesNestAndCoexistWithKernelTiming) {
  gpgpu::ComputeKernel kernel(context(), kScale, {}, "scale kernel");
  kernel.set_timing(true);
  Profiler prof(context());
  {
    auto outer = prof.scope("outer");
    {
      auto inner = prof.scope("inner");
      run_and_check(kernel);  // its own GL_TIME_ELAPSED query inside two timestamp scopes
    }
    prof.record(kernel);
    run_and_check(kernel);
  }
  EXPECT_EQ(prof.stats("outer").count, 1u);
  EXPECT_EQ(prof.stats("inner").count, 1u);
  // The program cache keeps the label of the first kernel compiled from this source.
  const auto k = prof.stats(kernel.label());
  EXPECT_EQ(k.count, 1u);
  EXPECT_EQ(k.wall_samples, 0u);
  if (context().info().has_timer_query()) {
    EXPECT_EQ(k.gpu_samples, 1u);
  }
  if (has_gpu_timer()) {
    const auto outer = prof.stats("outer"), inner = prof.stats("inner");
    if (outer.gpu_samples == 1 && inner.gpu_samples == 1) {
      EXPECT_GE(outer.gpu_total_ms, inner.gpu_total_ms);  // the outer scope contains the inner
    }
  }
}

TEST(Profiler, StopEndsOnceAndMovedScopesRecordOnce) {
  Profiler prof(context());
  auto a = prof.scope("a");
  a.stop();
  a.stop();
  {
    auto b = prof.scope("b");
    auto c = std::move(b);
  }
  prof.record("external", 2e6, 3e6);
  prof.record("external", -1, 5e6);
  EXPECT_EQ(prof.stats("a").count, 1u);
  EXPECT_EQ(prof.stats("b").count, 1u);
  const auto e = prof.stats("external");
  EXPECT_EQ(e.count, 2u);
  EXPECT_EQ(e.gpu_samples, 1u);
  EXPECT_DOUBLE_EQ(e.gpu_median_ms, 2.0);
  EXPECT_DOUBLE_EQ(e.wall_median_ms, 4.0);  // median of two: their mean
  EXPECT_DOUBLE_EQ(e.wall_total_ms, 8.0);
  prof.clear();
  EXPECT_TRUE(prof.stats().empty());
}

TEST(Profiler, TableAndJsonReport) {
  Profiler prof(context());
  prof.record("copy \"quoted\"", 1e6, 2e6);
  { auto s = prof.scope("scope"); }
  const std::string table = prof.table();
  EXPECT_NE(table.find("copy \"quoted\""), std::string::npos);
  EXPECT_NE(table.find(context().info().renderer), std::string::npos);
  const auto doc = nlohmann::json::parse(prof.json());
  EXPECT_EQ(doc["device"], context().info().renderer);
  EXPECT_EQ(doc["gpu_timer"].get<bool>(), prof.timing_source() == TimingSource::TimerQueries);
  ASSERT_EQ(doc["entries"].size(), 2u);
  EXPECT_EQ(doc["entries"][0]["name"], "copy \"quoted\"");
  EXPECT_EQ(doc["entries"][0]["count"], 1);
  EXPECT_DOUBLE_EQ(doc["entries"][0]["gpu_ms"]["median"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(doc["entries"][0]["wall_ms"]["total"].get<double>(), 2.0);
  EXPECT_EQ(doc["entries"][1]["name"], "scope");
}

}  // namespace
