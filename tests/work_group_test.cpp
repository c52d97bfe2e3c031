// Work-group size choice: candidates follow the device limits, the measured choice obeys its
// rule (within 5% of the fastest, nearest 256), and later calls come from the cache (an
// earlier process's measurement on disk, honoured only for the same device and driver).
// Speeds themselves are not asserted.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "cache_support.hpp"
#include "gpgpu/cache.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/work_group.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::test::context;

TEST(WorkGroup, CandidatesArePowersOfTwoWithinTheDeviceLimits) {
  const auto& info = context().info();
  const auto sizes = gpgpu::work_group_size_candidates(info);
  ASSERT_FALSE(sizes.empty());
  EXPECT_EQ(sizes.front(), 32);
  for (std::size_t i = 1; i < sizes.size(); ++i) EXPECT_EQ(sizes[i], 2 * sizes[i - 1]);
  EXPECT_LE(sizes.back(), info.max_compute_work_group_invocations);
  EXPECT_LE(sizes.back(), 1024);
  auto small = info;
  small.max_compute_work_group_invocations = 128;
  EXPECT_EQ(gpgpu::work_group_size_candidates(small), (std::vector<int>{32, 64, 128}));
}

TEST(WorkGroup, MeasuredChoiceFollowsItsRule) {
  gpgpu::WorkGroupOptions options;
  options.use_cache = false;
  options.floats = 1 << 16;
  options.warmup = 0;
  options.repeats = 1;
  const auto choice = gpgpu::choose_work_group_size(context(), options);
  EXPECT_TRUE(choice.measured);
  const auto sizes = gpgpu::work_group_size_candidates(context().info());
  ASSERT_EQ(choice.timings.size(), sizes.size());
  double fastest = choice.timings.front().median_ms;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(choice.timings[i].size, sizes[i]);
    EXPECT_GT(choice.timings[i].median_ms, 0.0);
    EXPECT_GT(choice.timings[i].gbps, 0.0);
    fastest = std::min(fastest, choice.timings[i].median_ms);
  }
  const auto chosen = std::find_if(choice.timings.begin(), choice.timings.end(),
                                   [&](const auto& t) { return t.size == choice.size; });
  ASSERT_NE(chosen, choice.timings.end());
  EXPECT_LE(chosen->median_ms, fastest * 1.05 + 1e-12);
  EXPECT_NE(choice.reason.find("SAXPY"), std::string::npos);
}

TEST(WorkGroup, HeuristicAndCache) {
  gpgpu::WorkGroupOptions heuristic;
  heuristic.use_cache = false;
  heuristic.measure = false;
  const auto h = gpgpu::choose_work_group_size(context(), heuristic);
  EXPECT_FALSE(h.measured);
  // 256, or the device's largest work group where that is smaller (128 at OpenGL ES 3.1's
  // minimum).
  const auto& info = context().info();
  EXPECT_EQ(h.size, std::min<std::int64_t>({256, info.max_compute_work_group_invocations,
                                            info.max_compute_work_group_size[0]}));
  EXPECT_TRUE(h.timings.empty());

  const int first = gpgpu::preferred_work_group_size(context());
  const auto again = gpgpu::choose_work_group_size(context());
  EXPECT_EQ(again.size, first);
  EXPECT_FALSE(again.measured);
  EXPECT_NE(again.reason.find("earlier"), std::string::npos);
  gpgpu::WorkGroupOptions bad;
  bad.use_cache = false;
  bad.repeats = 0;
  EXPECT_THROW(gpgpu::choose_work_group_size(context(), bad), gpgpu::ArgumentError);
}

// What another process stored for this device and driver is taken without measuring; an
// entry of another driver is not.
TEST(WorkGroup, AnEarlierProcesssChoiceComesFromTheDiskCacheForTheSameDriverOnly) {
  context();  // made first: a Context keeps the program cache folder it was made with
  const gpgpu::test::TempDir dir("gpgpu-work-group", /*as_cache_dir=*/true);
  const auto plant = [](const std::string& device) {
    const std::string text = "64\nplanted by the test";
    gpgpu::cache::Store("work-group", 1)
        .store("work-group size\n" + device, std::as_bytes(std::span(text.data(), text.size())));
  };
  plant(gpgpu::cache::device_key(context().info()) + "another driver\n");
  const auto other = gpgpu::choose_work_group_size(context());
  EXPECT_EQ(other.reason.find("planted"), std::string::npos) << other.reason;
  plant(gpgpu::cache::device_key(context().info()));
  const auto planted = gpgpu::choose_work_group_size(context());
  EXPECT_EQ(planted.size, 64);
  EXPECT_FALSE(planted.measured);
  EXPECT_NE(planted.reason.find("planted"), std::string::npos) << planted.reason;
}

}  // namespace
