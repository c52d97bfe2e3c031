// gpgpu::Sequence: replays give the bits of the same runs one by one; the hazard tracker's
// decisions (which barriers, with which bits, before which dispatch) as a pure function and
// as recorded from real kernels, and a mutation that drops barriers is caught; uniform
// handles take effect at the next replay; Buffers and Textures destroyed, released or
// replaced after recording are refused at replay; record-time errors are run()'s.
//
// Every output is poisoned before a run or replay and every element is checked against a
// float64 reference on fresh random inputs.
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <typeinfo>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/gpgpu.hpp"
#include "sequence/hazards.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::Arg;
using gpgpu::Args;
using gpgpu::Buffer;
using gpgpu::ComputeKernel;
using gpgpu::ElementType;
using gpgpu::Sequence;
using gpgpu::test::eps32;
using gpgpu::test::poison_float;

gpgpu::Context& ctx() {
  return gpgpu::test::context();
}

// y = a x + b
constexpr const char* scale_source = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
uniform float a;
uniform float b;
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) y[i] = a * x[i] + b;
})";

// w = y * z + float(offset)
constexpr const char* mul_source = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer Z { float z[]; };
layout(std430, binding = 2) writeonly buffer W { float w[]; };
uniform uint offset;
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) w[i] = y[i] * z[i] + float(offset);
})";

// s += w (read and written)
constexpr const char* accumulate_source = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer W { float w[]; };
layout(std430, binding = 1) buffer S { float s[]; };
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) s[i] += w[i];
})";

std::vector<float> poisoned(std::size_t n) {
  return std::vector<float>(n, poison_float());
}

void expect_same_bits(const std::vector<float>& got, const std::vector<float>& want,
                      const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i]))
        << what << " differs at " << i << ": " << got[i] << " vs " << want[i];
  }
}

// The three kernels and their Buffers.
struct Chain {
  std::size_t n;
  std::vector<float> x, z, s0;
  ComputeKernel scale{ctx(), scale_source, {}, "scale"};
  ComputeKernel mul{ctx(), mul_source, {}, "mul"};
  ComputeKernel accumulate{ctx(), accumulate_source, {}, "accumulate"};
  Buffer bx, by, bz, bw, bs;

  explicit Chain(std::size_t count)
      : n(count),
        x(gpgpu::test::random_floats(count)),
        z(gpgpu::test::random_floats(count)),
        s0(gpgpu::test::random_floats(count)),
        bx(Buffer::from(ctx(), x)),
        by(Buffer::from(ctx(), poisoned(count))),
        bz(Buffer::from(ctx(), z)),
        bw(Buffer::from(ctx(), poisoned(count))),
        bs(Buffer::from(ctx(), s0)) {}

  Args scale_args(float a, float b) { return {{"x", bx}, {"y", by}, {"a", a}, {"b", b}}; }
  Args mul_args(std::uint32_t offset) {
    return {{"y", by}, {"z", bz}, {"w", bw}, {"offset", offset}};
  }
  Args accumulate_args() { return {{"w", bw}, {"s", bs}}; }

  // The float64 value of s[i] after `steps` steps with these uniforms per step.
  double reference(std::size_t i, const std::vector<float>& a, const std::vector<float>& b,
                   const std::vector<std::uint32_t>& offset) const {
    double s = s0[i];
    for (std::size_t k = 0; k < a.size(); ++k) {
      const double y = static_cast<double>(a[k]) * x[i] + b[k];
      s += y * z[i] + offset[k];
    }
    return s;
  }
};

// The bound on |s - reference| after `steps` steps: each step rounds y (2 operations), w (2)
// and s (1) in float32, errors that add up; |values| stay below 8 + 4 per step.
double bound(std::size_t steps) {
  const double magnitude = 8.0 + 4.0 * static_cast<double>(steps);
  return 6.0 * eps32 * magnitude * static_cast<double>(steps);
}

TEST(Sequence, ReplaysGiveTheBitsOfTheSameRunsOneByOne) {
  SCOPED_TRACE(gpgpu::test::seed());
  const std::size_t n = 1000;  // not a multiple of the work group
  Chain runs(n), replays(n);
  replays.x = runs.x, replays.z = runs.z, replays.s0 = runs.s0;
  replays.bx.upload(runs.x), replays.bz.upload(runs.z), replays.bs.upload(runs.s0);

  Sequence step(ctx(), "step");
  step.record(replays.scale, replays.scale_args(1.5f, -0.25f));
  step.record(replays.mul, replays.mul_args(3));
  step.record(replays.accumulate, replays.accumulate_args());
  ASSERT_EQ(step.size(), 3u);
  // Recording runs nothing.
  expect_same_bits(replays.bs.to_vector<float>(), runs.s0, "s after recording");

  const std::vector<float> a{1.5f, 1.5f, 1.5f}, b{-0.25f, -0.25f, -0.25f};
  const std::vector<std::uint32_t> offset{3, 3, 3};
  for (std::size_t k = 0; k < a.size(); ++k) {
    runs.scale.run(runs.scale_args(a[k], b[k]));
    runs.mul.run(runs.mul_args(offset[k]));
    runs.accumulate.run(runs.accumulate_args());
    step.replay();
  }
  const auto want = runs.bs.to_vector<float>();
  expect_same_bits(replays.bs.to_vector<float>(), want, "s");
  expect_same_bits(replays.bw.to_vector<float>(), runs.bw.to_vector<float>(), "w");
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_NEAR(want[i], runs.reference(i, a, b, offset), bound(a.size())) << i;
  }
}

TEST(Sequence, ChangedUniformsTakeEffectAtTheNextReplay) {
  SCOPED_TRACE(gpgpu::test::seed());
  const std::size_t n = 300;
  Chain c(n);
  Sequence step(ctx(), "step");
  step.record(c.scale, c.scale_args(1.0f, 0.0f));
  step.record(c.mul, c.mul_args(0));
  step.record(c.accumulate, c.accumulate_args());
  auto a = step.uniform("a");
  auto offset = step.uniform("offset", 1, 2);
  EXPECT_EQ(a.dispatches(), 1u);
  std::vector<float> as, bs;
  std::vector<std::uint32_t> offsets;
  for (std::uint32_t k = 0; k < 4; ++k) {
    as.push_back(0.5f + static_cast<float>(k));
    bs.push_back(0.0f);
    offsets.push_back(2 * k + 1);
    a.set(as.back());
    offset.set(offsets.back());
    c.bw.upload(poisoned(n));
    step.replay();
    // A run of the same program with other values between replays: the replay must set its
    // own again (its uniform shadow knows the program was written since).
    std::vector<float> scratch = poisoned(n);
    c.scale.run({{"x", c.x}, {"y", gpgpu::out(scratch)}, {"a", 7.0f}, {"b", 7.0f}});
  }
  const auto s = c.bs.to_vector<float>();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_NEAR(s[i], c.reference(i, as, bs, offsets), bound(as.size())) << i;
  }
}

TEST(Sequence, UniformHandlesAreCheckedLikeRun) {
  Chain c(64);
  Sequence step(ctx(), "step");
  step.record(c.scale, c.scale_args(1.0f, 0.0f));
  step.record(c.mul, c.mul_args(0));
  auto a = step.uniform("a");
  EXPECT_THROW(a.set(std::uint32_t{1}), gpgpu::TypeMismatchError);
  EXPECT_THROW(a.set(std::array<float, 2>{1.0f, 2.0f}), gpgpu::SizeMismatchError);
  EXPECT_THROW(step.uniform("nothing"), gpgpu::UnknownArgumentError);
  EXPECT_THROW(step.uniform("gpgpu_count"), gpgpu::ArgumentError);
  EXPECT_THROW(step.uniform("offset", 0, 1), gpgpu::UnknownArgumentError);
  EXPECT_THROW(step.uniform("a", 1, 5), gpgpu::ArgumentError);
  EXPECT_EQ(step.dispatches_with("offset"), std::vector<std::size_t>{1});
  EXPECT_TRUE(step.dispatches_with("nothing").empty());
  step.clear();
  EXPECT_THROW(a.set(1.0f), gpgpu::Error);
  gpgpu::SequenceUniform orphan;
  {
    Sequence gone(ctx());
    gone.record(c.scale, c.scale_args(1.0f, 0.0f));
    orphan = gone.uniform("b");
  }
  EXPECT_THROW(orphan.set(1.0f), gpgpu::Error);
}

// The exception a call throws: its type and message.
std::string thrown_by(const std::function<void()>& call) {
  try {
    call();
  } catch (const gpgpu::Error& e) {
    return std::string(typeid(e).name()) + ": " + e.what();
  }
  return "(no error)";
}

TEST(Sequence, RecordTimeErrorsAreRunsErrors) {
  Chain c(100);
  Buffer ints(ctx(), ElementType::Int32, 100);
  Buffer released(ctx(), ElementType::Float32, 100);
  released.release();
  const std::vector<Args> bad = {
      {{"x", c.bx}, {"y", c.by}, {"a", 1.0f}},                            // missing b
      {{"x", c.bx}, {"y", c.by}, {"a", 1.0f}, {"b", 1.0f}, {"q", 1.0f}},  // unknown
      {{"x", ints}, {"y", c.by}, {"a", 1.0f}, {"b", 1.0f}},               // element type
      {{"x", c.bx}, {"y", c.by}, {"a", std::uint32_t{1}}, {"b", 1.0f}},   // uniform type
      {{"x", released}, {"y", c.by}, {"a", 1.0f}, {"b", 1.0f}},           // released
      {{"x", c.bx}, {"y", c.by}, {"a", 1.0f}, {"b", 1.0f}, {"x", c.bx}},  // given twice
  };
  for (const auto& args : bad) {
    const std::string from_run = thrown_by([&] { c.scale.run(args, 100); });
    ASSERT_NE(from_run, "(no error)");
    Sequence s(ctx());
    EXPECT_EQ(thrown_by([&] { s.record(c.scale, args, 100); }), from_run);
    EXPECT_EQ(s.size(), 0u) << "nothing recorded after an error";
  }
  // Sizes run() works out itself: the arrays disagree.
  Buffer shorter(ctx(), ElementType::Float32, 50);
  const Args disagree{{"x", c.bx}, {"y", shorter}, {"a", 1.0f}, {"b", 1.0f}};
  Sequence s(ctx());
  EXPECT_EQ(thrown_by([&] { s.record(c.scale, disagree); }),
            thrown_by([&] { c.scale.run(disagree); }));
  // A moved-from kernel: run()'s error. A kernel of another Context: refused.
  {
    ComputeKernel moved(ctx(), scale_source, {}, "moved");
    ComputeKernel into(std::move(moved));
    const Args args{{"x", c.bx}, {"y", c.by}, {"a", 1.0f}, {"b", 1.0f}};
    EXPECT_EQ(thrown_by([&] { s.record(moved, args); }), thrown_by([&] { moved.run(args); }));
    gpgpu::Context other;
    ComputeKernel foreign(other, scale_source, {}, "foreign");
    EXPECT_THROW(s.record(foreign, args), gpgpu::ArgumentError);
  }
  // What only a record refuses: host arrays (they would have to travel at every replay).
  std::vector<float> host = poisoned(100);
  EXPECT_THROW(s.record(c.scale, {{"x", c.x}, {"y", c.by}, {"a", 1.0f}, {"b", 1.0f}}),
               gpgpu::ArgumentError);
  EXPECT_THROW(s.record(c.scale, {{"x", c.bx}, {"y", gpgpu::out(host)}, {"a", 1.0f}, {"b", 1.0f}}),
               gpgpu::ArgumentError);
  EXPECT_EQ(s.size(), 0u);
}

TEST(Sequence, DestroyedReleasedOrReplacedBuffersAreRefusedAtReplay) {
  Chain c(128);
  auto make = [&](Buffer& y) {
    Sequence s(ctx(), "refusal");
    s.record(c.scale, {{"x", c.bx}, {"y", y}, {"a", 2.0f}, {"b", 0.0f}});
    s.record(c.mul, c.mul_args(1));
    return s;
  };
  {
    auto y = std::make_unique<Buffer>(ctx(), ElementType::Float32, 128);
    Sequence s = make(*y);
    s.replay();
    y.reset();
    EXPECT_FALSE(s.replayable());
    const std::string message = gpgpu::test::error_message_of([&] { s.replay(); });
    EXPECT_NE(message.find("'y'"), std::string::npos) << message;
    EXPECT_NE(message.find("dispatch 0 (scale)"), std::string::npos) << message;
    EXPECT_THROW(s.replay(), gpgpu::ArgumentError);
  }
  {
    Buffer y(ctx(), ElementType::Float32, 128);
    Sequence s = make(y);
    y.release();
    EXPECT_THROW(s.replay(), gpgpu::ArgumentError);
  }
  {
    Buffer y(ctx(), ElementType::Float32, 128);
    Sequence s = make(y);
    y = Buffer(ctx(), ElementType::Float32, 4096);  // reallocated: "resized"
    EXPECT_THROW(s.replay(), gpgpu::ArgumentError);
  }
  {
    // Moved, not replaced: the same GL buffer, followed.
    Buffer y = Buffer::from(ctx(), poisoned(128));
    Sequence s = make(y);
    Buffer moved = std::move(y);
    s.replay();
    const auto got = moved.to_vector<float>();
    for (std::size_t i = 0; i < 128; ++i) {
      ASSERT_NEAR(got[i], 2.0 * static_cast<double>(c.x[i]), 2 * eps32) << i;
    }
  }
}

TEST(Sequence, CaptureRecordsRunsAndRefusesWhatWouldRunAtOnce) {
  Chain c(256);
  Sequence s(ctx(), "captured");
  s.capture([&] {
    c.scale.run(c.scale_args(3.0f, 1.0f));
    c.mul.run(c.mul_args(2));
  });
  EXPECT_EQ(s.size(), 2u);
  expect_same_bits(c.bw.to_vector<float>(), poisoned(256), "w before the replay");
  // A transfer inside a capture would run out of order: refused, and nothing is recorded.
  EXPECT_THROW(s.capture([&] {
    c.scale.run(c.scale_args(1.0f, 1.0f));
    c.bx.upload(c.x);
  }),
               gpgpu::UnsupportedError);
  EXPECT_EQ(s.size(), 2u);
  s.replay();
  const auto w = c.bw.to_vector<float>();
  for (std::size_t i = 0; i < 256; ++i) {
    const double want = (3.0 * c.x[i] + 1.0) * c.z[i] + 2.0;
    ASSERT_NEAR(w[i], want, 8 * eps32 * 8.0) << i;
  }
  // Another sequence's replay inside a capture is recorded, not run.
  Sequence outer(ctx(), "outer");
  c.bw.upload(poisoned(256));
  outer.capture([&] { s.replay(); });
  EXPECT_EQ(outer.size(), 2u);
  expect_same_bits(c.bw.to_vector<float>(), poisoned(256), "w after the nested capture");
}

TEST(Sequence, ReplaysAreTimedLikeRuns) {
  static_assert(gpgpu::TimedKernel<Sequence>);
  Chain c(4096);
  Sequence s(ctx(), "timed");
  s.record(c.scale, c.scale_args(1.0f, 1.0f));
  s.record(c.mul, c.mul_args(1));
  EXPECT_EQ(s.last_gpu_ns(), -1);
  s.set_timing(true);
  s.replay();
  if (ctx().info().has_timer_query()) {
    EXPECT_GE(s.last_gpu_ns(), 0);
  } else {
    EXPECT_EQ(s.last_gpu_ns(), -1);
  }
  gpgpu::Profiler profiler(ctx());
  profiler.record(s);
  EXPECT_EQ(profiler.stats("timed").count, 1u);
  {
    auto scope = profiler.scope("replay");
    s.replay();
  }
  EXPECT_EQ(profiler.stats("replay").count, 1u);
}

// --- The hazard tracker's decisions -------------------------------------------------------

using gpgpu::detail::AccessPath;
using gpgpu::detail::plan_barriers;
using gpgpu::detail::ResourceAccess;

ResourceAccess buffer_read(unsigned name) {
  return {false, name, AccessPath::StorageBlock, true, false};
}
ResourceAccess buffer_write(unsigned name) {
  return {false, name, AccessPath::StorageBlock, false, true};
}

TEST(SequenceHazards, BarriersGoWhereADispatchDependsOnAnEarlierOne) {
  constexpr std::uint32_t storage = gpgpu::barrier_bits::shader_storage;
  // 0 writes 1; 1 reads 1 (RAW); 2 reads 2 only (independent); 3 writes 2, which 2 read (WAR);
  // 4 writes 1 again, which 0 wrote and 1 read (WAW and WAR, covered by the barrier before 3?
  // no: that barrier came after them, so none is needed).
  const auto plan = plan_barriers({{buffer_write(1)},
                                   {buffer_read(1), buffer_write(5)},
                                   {buffer_read(2)},
                                   {buffer_write(2)},
                                   {buffer_write(1)}});
  ASSERT_EQ(plan.before.size(), 5u);
  EXPECT_EQ(plan.before[0], 0u);
  EXPECT_EQ(plan.before[1], storage) << "read after write";
  EXPECT_EQ(plan.before[2], 0u) << "independent";
  EXPECT_EQ(plan.before[3], storage) << "write after read";
  EXPECT_EQ(plan.before[4], 0u) << "the barrier before 3 already ordered 0 and 1";
  EXPECT_EQ(plan.after_last, gpgpu::barrier_bits::all);

  // Write after write, and the bit of how the later dispatch reads: a texture fetch of an
  // image written by a shader needs TEXTURE_FETCH, an image load SHADER_IMAGE_ACCESS.
  const ResourceAccess image_write{true, 7, AccessPath::Image, false, true};
  const ResourceAccess sampled{true, 7, AccessPath::TextureFetch, true, false};
  const ResourceAccess image_read{true, 7, AccessPath::Image, true, false};
  const ResourceAccess texels{false, 1, AccessPath::TextureFetch, true, false};
  const auto mixed = plan_barriers(
      {{buffer_write(1)}, {buffer_write(1)}, {texels}, {image_write}, {sampled}, {image_read}});
  EXPECT_EQ(mixed.before[1], storage) << "write after write";
  EXPECT_EQ(mixed.before[2], gpgpu::barrier_bits::texture_fetch)
      << "buffer 1 read as texels after storage writes";
  EXPECT_EQ(mixed.before[3], 0u);
  EXPECT_EQ(mixed.before[4], gpgpu::barrier_bits::texture_fetch);
  EXPECT_EQ(mixed.before[5], gpgpu::barrier_bits::shader_image_access)
      << "the TEXTURE_FETCH barrier does not make the image's writes visible to image loads";
  // A buffer and a texture with the same GL name are different objects.
  const auto names =
      plan_barriers({{buffer_write(3)}, {{true, 3, AccessPath::TextureFetch, true, false}}});
  EXPECT_EQ(names.before[1], 0u);
  EXPECT_TRUE(plan_barriers({}).before.empty());
  EXPECT_EQ(plan_barriers({}).after_last, 0u);
}

// The barrier before each dispatch of a sequence, by index (the end barrier left out).
std::vector<std::uint32_t> barriers_before(const Sequence& s) {
  std::vector<std::uint32_t> bits(s.size(), 0);
  for (const auto& b : s.barriers()) {
    if (b.before < s.size()) bits[b.before] = b.bits;
  }
  return bits;
}

std::string fmt_bits(std::size_t dispatch, std::uint32_t got, std::uint32_t want) {
  return "before dispatch " + std::to_string(dispatch) + ": bits " + std::to_string(got) +
         " instead of " + std::to_string(want) + "; ";
}

// What the tracker must decide for scale -> mul -> accumulate -> scale: mul reads y, which scale
// wrote; accumulate reads w, which mul wrote; the second scale writes y, which mul read, but
// the barrier before accumulate already ordered that. Returns what is wrong, or "" (a
// function, so the mutation below can show it fails).
std::string wrong_chain_barriers(Chain& c) {
  Sequence s(ctx());
  s.record(c.scale, c.scale_args(1.0f, 0.0f));
  s.record(c.mul, c.mul_args(0));
  s.record(c.accumulate, c.accumulate_args());
  s.record(c.scale, c.scale_args(2.0f, 0.0f));
  const std::vector<std::uint32_t> want{0, gpgpu::barrier_bits::shader_storage,
                                        gpgpu::barrier_bits::shader_storage, 0};
  const auto got = barriers_before(s);
  std::string wrong;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (got[i] != want[i]) wrong += fmt_bits(i, got[i], want[i]);
  }
  const auto all = s.barriers();
  if (all.empty() || all.back().before != s.size() || all.back().bits != gpgpu::barrier_bits::all) {
    wrong += "no gpgpu::barrier_bits::all after the last dispatch; ";
  }
  return wrong;
}

TEST(SequenceHazards, RecordedKernelsGetTheirBarriersFromTheirQualifiers) {
  Chain c(64);
  EXPECT_EQ(wrong_chain_barriers(c), "");
  const std::string text = [&] {
    Sequence s(ctx(), "described");
    s.record(c.scale, c.scale_args(1.0f, 0.0f));
    s.record(c.mul, c.mul_args(0));
    return s.describe();
  }();
  EXPECT_NE(text.find("barrier SHADER_STORAGE\n  1 mul"), std::string::npos) << text;
}

TEST(SequenceHazards, AMutationThatDropsBarriersIsCaught) {
  // With the tracker's barrier insertion turned off (the test hook), the decisions checked
  // above come out wrong and the check says so: the tests fail when the tracker drops them.
  Chain c(64);
  gpgpu::detail::set_barrier_tracking_for_tests(false);
  const std::string wrong = wrong_chain_barriers(c);
  gpgpu::detail::set_barrier_tracking_for_tests(true);
  EXPECT_NE(wrong, "");
  EXPECT_EQ(wrong_chain_barriers(c), "");
}

// --- Textures: samplers and images ---------------------------------------------------------

TEST(Sequence, SamplersAndImagesReplayLikeRuns) {
  SCOPED_TRACE(gpgpu::test::seed());
  const std::size_t w = 16, h = 8;
  const auto values = gpgpu::test::random_floats(w * h);
  const auto src = gpgpu::Texture::from(ctx(), gpgpu::TexelType::Float, {h, w}, values);
  // Image written by one kernel, sampled by the next.
  ComputeKernel write(ctx(), R"(
layout(local_size_x = 8, local_size_y = 8) in;
uniform sampler2D src;
layout(r32f, binding = 1) writeonly uniform highp image2D dst;
uniform float factor;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x < 16 && p.y < 8) imageStore(dst, p, vec4(factor * texelFetch(src, p, 0).r));
})",
                      {}, "image write");
  ComputeKernel read(ctx(), R"(
layout(local_size_x = 64) in;
uniform sampler2D img;
layout(std430, binding = 0) writeonly buffer Out { float o[]; };
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) o[i] = texelFetch(img, ivec2(int(i) % 16, int(i) / 16), 0).r + 1.0;
})",
                     {}, "sample");
  gpgpu::Texture mid(ctx(), gpgpu::TexelType::Float, {h, w});
  Buffer out = Buffer::from(ctx(), poisoned(w * h));
  Sequence s(ctx(), "textures");
  s.record(write, {{"src", src}, {"dst", mid}, {"factor", 3.0f}}, gpgpu::Size3{w, h, 1});
  s.record(read, {{"img", mid}, {"o", out}}, w * h);
  const auto bits = barriers_before(s);
  EXPECT_EQ(bits[1], gpgpu::barrier_bits::texture_fetch) << s.describe();
  s.replay();
  const auto got = out.to_vector<float>();
  for (std::size_t i = 0; i < w * h; ++i) {
    ASSERT_NEAR(got[i], 3.0 * values[i] + 1.0, 4 * eps32 * 4.0) << i;
  }
  // The same two runs one by one give the same bits.
  Buffer by_runs = Buffer::from(ctx(), poisoned(w * h));
  write.run({{"src", src}, {"dst", mid}, {"factor", 3.0f}}, gpgpu::Size3{w, h, 1});
  read.run({{"img", mid}, {"o", by_runs}}, w * h);
  expect_same_bits(got, by_runs.to_vector<float>(), "sampled");
  // A destroyed Texture is refused.
  {
    auto gone = std::make_unique<gpgpu::Texture>(ctx(), gpgpu::TexelType::Float,
                                                 std::vector<std::size_t>{h, w});
    Sequence t(ctx());
    t.record(read, {{"img", *gone}, {"o", out}}, w * h);
    gone.reset();
    EXPECT_THROW(t.replay(), gpgpu::ArgumentError);
  }
}

}  // namespace
