// The disk cache of program binaries (src/shader/program_binary_cache.cpp) and batches of
// compiles (precompile): a program stored by one Context is restored by the next and gives
// the same results; a corrupt, truncated, foreign or unwritable cache falls back to
// compiling with one warning; two processes filling the cache at once leave it valid;
// GPGPU_CACHE=off and ContextOptions::cache_programs = false write nothing; compile errors
// read the same with the cache on and off. And the loop-cap probe's answer, kept likewise.
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cache/cache_file.hpp"
#include "cache_support.hpp"
#include "command.hpp"
#include "gpgpu/cache.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/npy.hpp"
#include "gpgpu/transform_feedback_kernel.hpp"
#include "shader/program_binary_cache.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using gpgpu::Context;
using gpgpu::test::eps32;

namespace {

using gpgpu::test::CapturedWarnings;
using gpgpu::test::ScopedEnv;

// A fresh cache directory per test, named by GPGPU_CACHE_DIR while the test runs.
struct TempCache : gpgpu::test::TempDir {
  TempCache() : gpgpu::test::TempDir("gpgpu-program-cache", true) {}
  fs::path programs() const { return path() / "programs"; }
  std::vector<fs::path> files() const {
    std::vector<fs::path> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(programs(), ec)) found.push_back(e.path());
    return found;
  }
};

// y = alpha x^2 + x: a kernel of its own per test (the comment), so no other cache holds it.
std::string kernel_source() {
  return "// " + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
         " " + std::to_string(gpgpu::test::seed()) + R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
uniform float alpha;
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) y[i] = alpha * x[i] * x[i] + x[i];
})";
}

struct Saxpy2 {
  std::vector<float> x = gpgpu::test::random_floats(1000);
  float alpha = gpgpu::test::random_floats(1, 0.5f, 2.0f)[0];

  // Runs the kernel in `ctx`; checks every element against float64 (three roundings:
  // the two products and the sum, each within eps32 of its exact value, so the error is
  // at most 3 eps32 (|alpha x^2| + |x|)) and returns the outputs.
  std::vector<float> run(const Context& ctx) const {
    gpgpu::ComputeKernel k(ctx, kernel_source(), {}, "cached kernel");
    std::vector<float> y(x.size(), gpgpu::test::poison_float());
    k.run({{"x", x}, {"y", gpgpu::out(y)}, {"alpha", alpha}});
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double xi = x[i], exact = alpha * xi * xi + xi;
      const double bound = 3 * eps32 * (std::abs(alpha * xi * xi) + std::abs(xi));
      EXPECT_NEAR(y[i], exact, bound) << "element " << i;
    }
    return y;
  }
};

std::vector<std::byte> read_bytes(const fs::path& p) {
  std::vector<std::byte> bytes;
  EXPECT_TRUE(gpgpu::cache::detail::read_whole_file(p, bytes)) << p;
  return bytes;
}

void write_bytes(const fs::path& p, const std::vector<std::byte>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

// The key and payload of a cache file (cache_file.hpp: a 36-byte header, name, key, payload).
struct Entry {
  std::string key;
  std::vector<std::byte> payload;
};
Entry read_entry(const fs::path& p) {
  const auto bytes = read_bytes(p);
  const auto u32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    std::memcpy(&v, bytes.data() + at, 4);
    return v;
  };
  const std::size_t name = u32(12), key = u32(16), header = 36;
  Entry e;
  e.key.assign(reinterpret_cast<const char*>(bytes.data()) + header + name, key);
  e.payload.assign(bytes.begin() + static_cast<std::ptrdiff_t>(header + name + key), bytes.end());
  return e;
}
void write_entry(const fs::path& p, const Entry& e) {
  write_bytes(
      p, gpgpu::cache::detail::encode_entry(
             {"programs", gpgpu::detail::ProgramBinaryCache::format_version, e.key}, e.payload));
}

// Stores the test's kernel through one Context; returns its outputs and its cache file.
std::pair<std::vector<float>, fs::path> store_one(const TempCache& cache, const Saxpy2& work) {
  Context ctx;
  auto y = work.run(ctx);
  EXPECT_EQ(ctx.program_counts().compiled, 1u);
  EXPECT_EQ(ctx.program_counts().restored, 0u);
  const auto files = cache.files();
  EXPECT_EQ(files.size(), 1u);
  return {y, files.empty() ? fs::path() : files[0]};
}

// A later Context meets a damaged entry: it compiles (results right), with one warning,
// and the entry is rewritten so that the next Context restores it.
void expect_recompiled_with_one_warning(const Saxpy2& work, const std::vector<float>& first) {
  {
    CapturedWarnings warnings;
    Context ctx;
    const auto y = work.run(ctx);
    EXPECT_TRUE(gpgpu::test::same_float_bits(y, first));
    EXPECT_EQ(ctx.program_counts().compiled, 1u);
    EXPECT_EQ(ctx.program_counts().restored, 0u);
    ASSERT_EQ(warnings.lines.size(), 1u);
  }
  CapturedWarnings none;
  Context again;
  work.run(again);
  EXPECT_EQ(again.program_counts().restored, 1u);
  EXPECT_TRUE(none.lines.empty());
}

}  // namespace

TEST(ProgramCache, ANewContextRestoresTheProgramAndComputesTheSame) {
  SCOPED_TRACE("seed " + std::to_string(gpgpu::test::seed()));
  TempCache cache;
  const Saxpy2 work;
  const auto [first, file] = store_one(cache, work);
  CapturedWarnings warnings;
  Context ctx;
  const auto again = work.run(ctx);
  EXPECT_EQ(ctx.program_counts().restored, 1u);
  EXPECT_EQ(ctx.program_counts().compiled, 0u);
  EXPECT_TRUE(gpgpu::test::same_float_bits(again, first));
  // The restored program is introspected like a compiled one.
  gpgpu::ComputeKernel k(ctx, kernel_source());
  EXPECT_EQ(k.local_size()[0], 64);
  EXPECT_TRUE(warnings.lines.empty());
}

TEST(ProgramCache, TransformFeedbackProgramsKeepTheirCaptureThroughTheCache) {
  SCOPED_TRACE("seed " + std::to_string(gpgpu::test::seed()));
  TempCache cache;
  const auto a = gpgpu::test::random_floats(500);
  const auto b = gpgpu::test::random_floats(500);
  const std::string source = "// " + std::to_string(gpgpu::test::seed()) + R"(
in float A;
in float B;
out float C;
out vec2 D;
void main() { C = A + B; D = vec2(A * B, A - B); })";
  // Each output is one rounding of exact operands: within eps32 of the float64 value.
  const auto run = [&](const Context& ctx) {
    gpgpu::TransformFeedbackKernel k(ctx, source);
    std::vector<float> c(a.size(), gpgpu::test::poison_float());
    std::vector<float> d(2 * a.size(), gpgpu::test::poison_float());
    k.run({{"A", a}, {"B", b}, {"C", c}, {"D", d}});
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double x = a[i], y = b[i];
      EXPECT_NEAR(c[i], x + y, eps32 * std::abs(x + y)) << i;
      EXPECT_NEAR(d[2 * i], x * y, eps32 * std::abs(x * y)) << i;
      EXPECT_NEAR(d[2 * i + 1], x - y, eps32 * std::abs(x - y)) << i;
    }
    return std::pair{c, d};
  };
  Context first;
  const auto [c1, d1] = run(first);
  EXPECT_EQ(first.program_counts().restored, 0u);
  Context second;
  const auto [c2, d2] = run(second);
  // The separable probe that names the outputs and the capturing program: both restored.
  EXPECT_EQ(second.program_counts().compiled, 0u);
  EXPECT_EQ(second.program_counts().restored, first.program_counts().compiled);
  EXPECT_TRUE(gpgpu::test::same_float_bits(c1, c2));
  EXPECT_TRUE(gpgpu::test::same_float_bits(d1, d2));
}

TEST(ProgramCache, ACorruptFileIsCompiledAgainWithOneWarning) {
  SCOPED_TRACE("seed " + std::to_string(gpgpu::test::seed()));
  TempCache cache;
  const Saxpy2 work;
  const auto [first, file] = store_one(cache, work);
  auto bytes = read_bytes(file);
  bytes[bytes.size() / 2] ^= std::byte{0x5A};
  write_bytes(file, bytes);
  expect_recompiled_with_one_warning(work, first);
}

TEST(ProgramCache, ATruncatedFileIsCompiledAgainWithOneWarning) {
  SCOPED_TRACE("seed " + std::to_string(gpgpu::test::seed()));
  TempCache cache;
  const Saxpy2 work;
  const auto [first, file] = store_one(cache, work);
  auto bytes = read_bytes(file);
  bytes.resize(bytes.size() / 2);
  write_bytes(file, bytes);
  expect_recompiled_with_one_warning(work, first);
}

TEST(ProgramCache, ABinaryTheDriverRefusesIsCompiledAgainWithOneWarning) {
  SCOPED_TRACE("seed " + std::to_string(gpgpu::test::seed()));
  TempCache cache;
  const Saxpy2 work;
  const auto [first, file] = store_one(cache, work);
  // A well-formed entry (checksum right) whose binary format no driver knows, as after a
  // driver update that kept its version string.
  Entry e = read_entry(file);
  ASSERT_GT(e.payload.size(), 4u);
  for (int i = 0; i < 4; ++i) e.payload[i] = std::byte{0x7E};
  write_entry(file, e);
  expect_recompiled_with_one_warning(work, first);
}

TEST(ProgramCache, AnEntryOfAnotherDriverIsNeverLoaded) {
  SCOPED_TRACE("seed " + std::to_string(gpgpu::test::seed()));
  TempCache cache;
  const Saxpy2 work;
  const auto [first, file] = store_one(cache, work);
  // The same file name holding the entry of another renderer: the full key differs, so it is
  // a miss (as a hash collision would be) and is replaced by this driver's entry.
  Entry e = read_entry(file);
  const auto at = e.key.find("renderer ");
  ASSERT_NE(at, std::string::npos);
  e.key.insert(at + 9, "Another GPU ");
  write_entry(file, e);
  Context ctx;
  EXPECT_TRUE(gpgpu::test::same_float_bits(work.run(ctx), first));
  EXPECT_EQ(ctx.program_counts().compiled, 1u);
  EXPECT_EQ(read_entry(file).key.find("Another GPU"), std::string::npos);
}

TEST(ProgramCache, AnUnwritableCacheWarnsOnceAndCompiles) {
  SCOPED_TRACE("seed " + std::to_string(gpgpu::test::seed()));
  TempCache cache;
  // A folder inside a regular file: not writable even for root.
  fs::create_directories(cache.path());
  std::ofstream(cache.path() / "file") << "not a folder";
  ScopedEnv dir("GPGPU_CACHE_DIR", (cache.path() / "file" / "cache").c_str());
  CapturedWarnings warnings;
  const Saxpy2 work;
  Context ctx;
  work.run(ctx);
  gpgpu::ComputeKernel other(ctx, kernel_source() + "\n// another program", {}, "second");
  EXPECT_EQ(ctx.program_counts().compiled, 2u);
  EXPECT_EQ(warnings.lines.size(), 1u);
}

TEST(ProgramCache, TurnedOffNothingIsWritten) {
  SCOPED_TRACE("seed " + std::to_string(gpgpu::test::seed()));
  TempCache cache;
  const Saxpy2 work;
  {
    ScopedEnv off("GPGPU_CACHE", "off");
    Context ctx;
    work.run(ctx);
    EXPECT_EQ(ctx.program_counts().compiled, 1u);
  }
  {
    Context ctx({.cache_programs = false});
    work.run(ctx);
    EXPECT_EQ(ctx.program_counts().compiled, 1u);
  }
  EXPECT_FALSE(fs::exists(cache.path()));
}

TEST(ProgramCache, CompileErrorsReadTheSameWithTheCacheOnAndOff) {
  TempCache cache;
  const std::string broken = kernel_source() + "\nvoid f() { undefined_name = 1.0; }\n";
  const auto message = [&](bool on) {
    Context ctx({.cache_programs = on});
    return gpgpu::test::error_message_of(
        [&] { gpgpu::ComputeKernel k(ctx, broken, {}, "broken"); });
  };
  const std::string on = message(true);
  EXPECT_NE(on.find("undefined_name"), std::string::npos) << on;
  EXPECT_NE(on.find("broken"), std::string::npos) << on;
  EXPECT_EQ(on, message(false));
  EXPECT_TRUE(cache.files().empty());  // a failed program is never stored
}

TEST(ProgramCache, PrecompiledKernelsAreReadyAndFailuresStillThrowWhenMade) {
  SCOPED_TRACE("seed " + std::to_string(gpgpu::test::seed()));
  TempCache cache;
  const Saxpy2 work;
  std::vector<gpgpu::KernelSource> batch;
  for (int v = 0; v < 4; ++v) {
    batch.push_back({kernel_source() + "\n// variant " + std::to_string(v), {}, "variant"});
  }
  batch.push_back({kernel_source() + "\nvoid f() { undefined_name = 1.0; }", {}, "broken"});
  batch.push_back({kernel_source(), {}, "the test's kernel"});
  Context ctx;
  EXPECT_EQ(gpgpu::precompile(ctx, batch), batch.size() - 1);
  EXPECT_EQ(ctx.program_counts().compiled, batch.size() - 1);
  const auto precompiled = work.run(ctx);  // found ready: nothing more is compiled
  EXPECT_EQ(ctx.program_counts().compiled, batch.size() - 1);
  const std::string error = gpgpu::test::error_message_of(
      [&] { gpgpu::ComputeKernel k(ctx, batch[4].source, {}, "broken"); });
  EXPECT_NE(error.find("undefined_name"), std::string::npos) << error;
  // A second Context restores the batch from the disk cache.
  Context again;
  EXPECT_EQ(gpgpu::precompile(again, batch), batch.size() - 1);
  EXPECT_EQ(again.program_counts().restored, batch.size() - 1);
  EXPECT_TRUE(gpgpu::test::same_float_bits(work.run(again), precompiled));
}

// Kernels constructed inside a CompileBatch compile together when it ends (the outermost of
// nested batches); they compute what kernels compiled alone compute, and a kernel that does
// not compile throws the CompileError it throws alone, at its first run.
TEST(ProgramCache, ACompileBatchCompilesItsKernelsWhenItEnds) {
  SCOPED_TRACE("seed " + std::to_string(gpgpu::test::seed()));
  TempCache cache;
  const Saxpy2 work;
  const std::string broken = kernel_source() + "\nvoid f() { undefined_name = 1.0; }\n";
  Context alone({.cache_programs = false});
  const auto expected = work.run(alone);
  const std::string expected_error =
      gpgpu::test::error_message_of([&] { gpgpu::ComputeKernel k(alone, broken, {}, "broken"); });

  Context ctx({.cache_programs = false});
  std::vector<gpgpu::ComputeKernel> kernels;
  {
    gpgpu::CompileBatch outer(ctx);
    {
      gpgpu::CompileBatch inner(ctx);
      for (int v = 0; v < 3; ++v) {
        kernels.emplace_back(ctx, kernel_source() + "\n// variant " + std::to_string(v),
                             gpgpu::Defines{}, "variant");
      }
      kernels.emplace_back(ctx, broken, gpgpu::Defines{}, "broken");
    }
    EXPECT_EQ(ctx.program_counts().compiled, 0u);  // the inner batch leaves it to the outer
    kernels.emplace_back(ctx, kernel_source(), gpgpu::Defines{}, "cached kernel");
  }
  EXPECT_EQ(ctx.program_counts().compiled, 4u);  // all but the broken one
  for (int v = 0; v < 3; ++v) {
    std::vector<float> y(work.x.size(), gpgpu::test::poison_float());
    kernels[v].run({{"x", work.x}, {"y", gpgpu::out(y)}, {"alpha", work.alpha}});
    EXPECT_TRUE(gpgpu::test::same_float_bits(y, expected)) << "variant " << v;
  }
  EXPECT_EQ(work.run(ctx), expected);  // the test's kernel, taken from the batch
  EXPECT_EQ(ctx.program_counts().compiled, 4u);
  std::vector<float> y(work.x.size());
  const std::string error = gpgpu::test::error_message_of([&] {
    kernels[3].run({{"x", work.x}, {"y", gpgpu::out(y)}, {"alpha", work.alpha}});
  });
  EXPECT_EQ(error, expected_error);
}

// Two `gpgpu sort` processes fill one cache at once; every file is then whole and valid, and
// a third process restores from it without a warning and sorts correctly.
TEST(ProgramCache, TwoProcessesFillingTheCacheAtOnceLeaveItValid) {
  SCOPED_TRACE("seed " + std::to_string(gpgpu::test::seed()));
  TempCache cache;
  fs::create_directories(cache.path());
  const auto keys = gpgpu::test::random_uints(1 << 16, 0, 0xFFFFFFFFu);
  const fs::path in = cache.path() / "keys.npy";
  gpgpu::npy::save(in, gpgpu::npy::make<std::uint32_t>({keys.size()}, keys));
  const std::string cli = GPGPU_CLI_PATH;
  const auto sort = [&](const std::string& out) {
    return cli + " sort " + in.string() + " -o " + (cache.path() / out).string();
  };
  const auto both = gpgpu::test::run_command(
      "{ " + sort("a.npy"), "& " + sort("b.npy") + "; wait; }", cache.path() / "both.log");
  ASSERT_EQ(both.status, 0) << both.output;
  EXPECT_EQ(both.output.find("warning"), std::string::npos) << both.output;
  const auto files = cache.files();
  ASSERT_FALSE(files.empty());
  CapturedWarnings warnings;
  const gpgpu::cache::Store store("programs", gpgpu::detail::ProgramBinaryCache::format_version);
  for (const auto& f : files) {
    EXPECT_EQ(f.extension(), ".bin") << f;  // no temporary left behind
    const Entry e = read_entry(f);
    const auto payload = store.load(e.key);
    ASSERT_TRUE(payload.has_value()) << f;
    EXPECT_EQ(*payload, e.payload);
  }
  EXPECT_TRUE(warnings.lines.empty());
  const auto third = gpgpu::test::run_command(sort("c.npy"), "", cache.path() / "third.log");
  ASSERT_EQ(third.status, 0) << third.output;
  EXPECT_EQ(third.output.find("warning"), std::string::npos) << third.output;
  auto expected = keys;
  std::sort(expected.begin(), expected.end());
  for (const char* name : {"a.npy", "b.npy", "c.npy"}) {
    const auto sorted = gpgpu::npy::load(cache.path() / name);
    const auto got = sorted.view<std::uint32_t>();
    EXPECT_TRUE(std::equal(got.begin(), got.end(), expected.begin(), expected.end())) << name;
  }
}

// The loop-cap probe's answer is kept per device and driver: a later process (`gpgpu info`)
// reports what is stored for its driver and ignores an entry of another driver.
TEST(LoopLimitCache, ALaterProcessTakesTheStoredAnswerOfItsOwnDriverOnly) {
  TempCache cache;
  fs::create_directories(cache.path());
  const std::string info = std::string(GPGPU_CLI_PATH) + " info";
  const auto probed = gpgpu::test::run_command(info, "", cache.path() / "probed.log");
  ASSERT_EQ(probed.status, 0) << probed.output;
  const auto files = [&] {
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(cache.path() / "loop-limit")) found.push_back(e);
    return found;
  }();
  ASSERT_EQ(files.size(), 1u);
  const auto plant = [&](const std::string& key, const std::string& text) {
    gpgpu::cache::Store("loop-limit", 2)  // the format version of gl/loop_limit.cpp
        .store(key, std::as_bytes(std::span(text.data(), text.size())));
  };
  const std::string key = read_entry(files[0]).key;
  plant(key + "another driver\n", "1234 1 1048576");
  const auto other = gpgpu::test::run_command(info, "", cache.path() / "other.log");
  EXPECT_EQ(other.output.find("1234, shared"), std::string::npos) << other.output;
  plant(key, "4321 1 1048576");  // a value no device has: it can only come from the cache
  const auto stored = gpgpu::test::run_command(info, "", cache.path() / "stored.log");
  EXPECT_NE(stored.output.find("4321, shared by all loops"), std::string::npos) << stored.output;
}
