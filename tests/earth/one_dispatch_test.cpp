// The one-dispatch step (ModelOptions::one_dispatch_steps): a step's eight dispatches as one
// whose work groups meet at grid-wide waits. Its steps against the plain kernels', with one
// work group and with several (which then read each other's writes across the waits); the
// refusals: across ranks, with hyperdiffusion, under a device's storage-buffer limit, and
// with more work groups than the device runs at once (the waits give up instead of hanging).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "earth_test_fields.hpp"
#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/model.hpp"
#include "gpgpu/earth/team.hpp"
#include "gpgpu/error.hpp"
#include "test_support.hpp"

namespace ge = gpgpu::earth;

namespace {

using gpgpu::earth::test::grid_at;
using gpgpu::earth::test::perturbed;
using gpgpu::earth::test::three_steps_disagreement;
using One = ge::ModelOptions::OneDispatch;

// Work-group counts whose groups run at once and can wait for each other here. On a software
// rasterizer one: llvmpipe ends a shader's loops after 65,535 iterations in all, so a wait
// for a group its host started a few milliseconds late gives up. On a GPU up to its default
// (one invocation a cell: 6 groups here), and an odd count.
std::vector<int> resident_group_counts() {
  if (gpgpu::test::context().info().is_software) return {1};
  return {1, 2, 5, 0};
}

}  // namespace

// The same expressions as the plain kernels, in one program: a compiler may contract them
// into multiply-adds differently (three_steps_disagreement's float32 bound). Every cell is
// checked after 3 steps, replayed and run one by one, for the tracer (case 1) and the full
// equations (cases 2 and 6).
TEST(OneDispatch, StepsAgreeWithThePlainKernels) {
  auto& ctx = gpgpu::test::context();
  const auto& g = grid_at(3);
  for (const int groups : resident_group_counts()) {
    for (const int number : {1, 2, 6}) {
      for (const bool replay : {true, false}) {
        SCOPED_TRACE(fmt::format("{} groups, case {}, {}", groups, number,
                                 replay ? "replayed" : "one by one"));
        const auto setup = ge::make_case(number);
        ge::ModelOptions one, plain;
        one.one_dispatch_steps = One::On;
        one.one_dispatch_groups = groups;
        plain.one_dispatch_steps = One::Off;
        plain.fuse_stages = ge::ModelOptions::StageFusion::Off;
        one.replay_steps = plain.replay_steps = replay;
        ge::Model a(ctx, g, setup, one), b(ctx, g, setup, plain);
        ASSERT_EQ(a.traffic().dispatches, 1);
        ASSERT_EQ(b.traffic().dispatches, 8);
        const ge::Fields f = perturbed(g, setup);
        a.set_fields(f);
        b.set_fields(f);
        a.step(3);
        b.step(3);
        ASSERT_NO_THROW(a.check());  // no wait gave up
        ASSERT_EQ(three_steps_disagreement(a.fields(), b.fields()), "");
      }
    }
  }
}

// A run's state checks and time step changes pass through: a day of case 2 at level 3 keeps
// the plain kernels' result to the same bound, with the step halved half-way.
TEST(OneDispatch, RunsAndChangedTimeStepsAgreeWithThePlainKernels) {
  auto& ctx = gpgpu::test::context();
  const auto& g = grid_at(3);
  const auto setup = ge::make_case(2);
  ge::ModelOptions one, plain;
  one.one_dispatch_steps = One::On;
  one.one_dispatch_groups = resident_group_counts().back();
  plain.one_dispatch_steps = One::Off;
  plain.fuse_stages = ge::ModelOptions::StageFusion::Off;
  ge::Model a(ctx, g, setup, one), b(ctx, g, setup, plain);
  for (ge::Model* m : {&a, &b}) {
    m->run(43200.0);
    m->set_time_step(0.5 * m->time_step());
    m->step(8);
  }
  const auto fa = a.fields(), fb = b.fields();
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    ASSERT_NEAR(fa.height[i], fb.height[i], 1e-5 * std::abs(fb.height[i]) + 1e-2) << "cell " << i;
  }
  EXPECT_EQ(a.time(), b.time());
}

// Auto never takes it on a software rasterizer, whose work groups are its host's threads.
TEST(OneDispatch, AutoLeavesSoftwareDevicesThePlainKernels) {
  auto& ctx = gpgpu::test::context();
  ge::ModelOptions o;
  o.one_dispatch_steps = One::Auto;
  o.fuse_stages = ge::ModelOptions::StageFusion::Off;
  const ge::Model m(ctx, grid_at(3), ge::make_case(2), o);
  EXPECT_EQ(m.traffic().dispatches, ctx.info().is_software ? 8 : 1);
}

TEST(OneDispatch, IsRefusedNamingWhy) {
  auto& ctx = gpgpu::test::context();
  const auto& g = grid_at(3);
  ge::ModelOptions on;
  on.one_dispatch_steps = One::On;
  const std::vector<std::pair<std::string, std::function<void()>>> refusals = {
      {"ranks' parts",
       [&] {
         const auto team = ge::rehearsal(2, 0);
         ge::Model m(ctx, g, ge::make_case(2), on, *team);
       }},
      {"hyperdiffusion", [&] {
         ge::ModelOptions o = on;
         o.diffusion_time = 6 * 3600.0;
         ge::Model m(ctx, g, ge::make_case(6), o);
       }}};
  for (const auto& [why, make] : refusals) {
    try {
      make();
      ADD_FAILURE() << "no refusal: " << why;
    } catch (const gpgpu::ArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
  ge::ModelOptions bad = on;
  bad.one_dispatch_groups = -1;
  EXPECT_THROW(ge::Model(ctx, g, ge::make_case(2), bad), gpgpu::ArgumentError);
}

// The Mali-G610-class profile allows 8 storage buffers in a compute shader; the step binds 12.
TEST(OneDispatch, UnderAMaliProfileIsRefusedNamingTheStorageBufferLimit) {
  gpgpu::Context mali({.limits = "mali-g610-panfrost"});
  ge::ModelOptions on;
  on.one_dispatch_steps = One::On;
  try {
    ge::Model m(mali, grid_at(3), ge::make_case(2), on);
    ADD_FAILURE() << "a one-dispatch model was made under the Mali profile";
  } catch (const gpgpu::DeviceLimitError& e) {
    EXPECT_EQ(e.limit(), "GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS") << e.what();
    EXPECT_EQ(e.needed(), 12) << e.what();
    EXPECT_EQ(e.allowed(), 8) << e.what();
  }
  on.one_dispatch_steps = One::Auto;  // Auto takes the plain kernels there
  EXPECT_NE(ge::Model(mali, grid_at(3), ge::make_case(2), on).traffic().dispatches, 1);
}

// Work groups that do not all run at once never all arrive at a wait: 4096 groups of 128
// invocations (an H200 holds at most 2,112 such groups; llvmpipe runs one a core and lets the
// others in only as groups end or yield), each wait polling once. The first step's waits give
// up instead of hanging, and the Model is refused, naming the groups and polls.
TEST(OneDispatch, WaitsThatGiveUpRefuseTheModelWithoutHanging) {
  auto& ctx = gpgpu::test::context();
  ge::ModelOptions on;
  on.one_dispatch_steps = One::On;
  on.one_dispatch_groups = 4096;
  on.one_dispatch_polls = 1;
  try {
    ge::Model m(ctx, grid_at(3), ge::make_case(2), on);
    ADD_FAILURE() << "every wait of 4096 groups succeeded at its first poll";
  } catch (const gpgpu::LimitError& e) {
    EXPECT_NE(std::string(e.what()).find("4096 work groups"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("after 1 poll)"), std::string::npos) << e.what();
  }
  ge::ModelOptions bad = on;
  bad.one_dispatch_polls = -1;
  EXPECT_THROW(ge::Model(ctx, grid_at(3), ge::make_case(2), bad), gpgpu::ArgumentError);
}
