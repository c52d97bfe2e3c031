// Timeline: marks come back in order with their labels and indices, host times that never go
// back, GPU times only where the device's timestamps mean something (never on llvmpipe), the
// index window and the capacity honoured, bad options refused; the work between marks runs
// unchanged. No assertion here is about speed.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/timeline.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::Timeline;
using gpgpu::TimelineOptions;
using gpgpu::test::context;

constexpr const char* kAddOne = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Y { float y[]; };
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] += 1.0; })";

TEST(Timeline, MarksComeBackInOrderAroundWorkThatRunsUnchanged) {
  gpgpu::ComputeKernel add(context(), kAddOne);
  const auto start = gpgpu::test::random_floats(1000);
  gpgpu::Buffer y = gpgpu::Buffer::from(context(), start);
  Timeline tl(context());
  constexpr int kSteps = 20;
  for (int s = 0; s < kSteps; ++s) {
    tl.mark("before", s);
    add.run({{"y", y}}, y.size());
    tl.mark("after", s);
  }
  const auto got = y.to_vector<float>();
  for (std::size_t i = 0; i < got.size(); ++i) {
    float want = start[i];
    for (int s = 0; s < kSteps; ++s) want += 1.0f;  // the kernel's float32 additions
    ASSERT_EQ(got[i], want) << "element " << i;
  }
  const auto marks = tl.marks();
  ASSERT_EQ(marks.size(), 2u * kSteps);
  for (std::size_t i = 0; i < marks.size(); ++i) {
    EXPECT_EQ(marks[i].label, i % 2 == 0 ? "before" : "after") << i;
    EXPECT_EQ(marks[i].index, static_cast<long long>(i / 2)) << i;
    EXPECT_GE(marks[i].host_us, 0.0) << i;
    if (i > 0) {
      EXPECT_GE(marks[i].host_us, marks[i - 1].host_us) << i;
    }
    if (!tl.has_gpu_times()) {
      EXPECT_EQ(marks[i].gpu_us, -1.0) << i;
    } else if (i > 0 && marks[i - 1].gpu_us >= 0 && marks[i].gpu_us >= 0) {
      EXPECT_GE(marks[i].gpu_us, marks[i - 1].gpu_us) << i;  // in-order queue
    }
  }
  EXPECT_EQ(tl.dropped(), 0u);
  EXPECT_FALSE(tl.description().empty());
  if (context().info().is_software) {
    EXPECT_FALSE(tl.has_gpu_times()) << "llvmpipe's timestamps do not see its work";
    EXPECT_NE(tl.description().find("host times only"), std::string::npos) << tl.description();
  }
}

TEST(Timeline, KeepsItsIndexWindowAndCapacityAndCountsWhatItDrops) {
  Timeline window(context(), {.capacity = 100, .first = 10, .last = 19});
  for (int i = 0; i < 30; ++i) window.mark("step", i);
  const auto kept = window.marks();
  ASSERT_EQ(kept.size(), 10u);
  for (std::size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(kept[i].index, 10 + static_cast<int>(i));
  EXPECT_EQ(window.dropped(), 0u);  // outside the window is not "dropped"

  Timeline small(context(), {.capacity = 5});
  for (int i = 0; i < 8; ++i) small.mark("m", i);
  EXPECT_EQ(small.marks().size(), 5u);
  EXPECT_EQ(small.dropped(), 3u);
  small.mark("late", 99);  // full: still counted, never recorded
  EXPECT_EQ(small.marks().size(), 5u);
  EXPECT_EQ(small.dropped(), 4u);
}

TEST(Timeline, ResolvesInStagesAndWritesCsv) {
  Timeline tl(context());
  tl.mark("a,b", 1);  // a label with a comma is written as given: the caller's CSV problem
  tl.mark("second", 2);
  EXPECT_EQ(tl.marks().size(), 2u);
  tl.mark("third", 3);
  const std::string csv = tl.csv();
  std::istringstream in(csv);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u) << csv;
  EXPECT_EQ(lines[0], "label,index,host_us,gpu_us");
  EXPECT_EQ(lines[2].rfind("second,2,", 0), 0u) << lines[2];
  EXPECT_EQ(lines[3].rfind("third,3,", 0), 0u) << lines[3];
  if (!tl.has_gpu_times()) {
    EXPECT_NE(lines[3].find(",-1.000"), std::string::npos) << lines[3];
  }
}

TEST(Timeline, RefusesOptionsThatCouldKeepNothing) {
  try {
    Timeline tl(context(), {.capacity = 0});
    FAIL() << "capacity 0 accepted";
  } catch (const gpgpu::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("capacity"), std::string::npos) << e.what();
  }
  try {
    Timeline tl(context(), {.capacity = 10, .first = 5, .last = 4});
    FAIL() << "first > last accepted";
  } catch (const gpgpu::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("first index 5 is past last 4"), std::string::npos)
        << e.what();
  }
}

}  // namespace
