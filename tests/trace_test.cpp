// Access traces: the source rewrite (read/write kinds, declarations left alone), the logged
// (invocation, element) pairs checked one by one against what the kernel must do, the
// coalescing numbers of coalesced, strided and transposed access, and the PNG.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/error.hpp"
#include "gpgpu/trace.hpp"
#include "gpgpu/transpose.hpp"
#include "test_support.hpp"
#include "trace/trace_instrument.hpp"

namespace {

using gpgpu::AccessKind;
using gpgpu::TracedKernel;
using gpgpu::TraceOptions;
using gpgpu::test::context;
using gpgpu::test::poison_float;
using gpgpu::test::random_floats;

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(TraceInstrument, KindsFromTheSurroundingOperators) {
  const std::string src = R"(layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer A { uint a[]; };
shared uint a_copy[64];
void main() {
  uint i = gl_GlobalInvocationID.x;
  a[i] = 1u;            // write
  a[i + 1u] += 2u;      // read-write
  uint x = a[2u * i];   // read
  if (a[i] == x) { a[0] <<= 1u; }  // read, then read-write
  a[a[i]]++;            // the outer read-writes, the inner reads
  atomicAdd(a[3], 1u);  // read-write
  ++a[4];               // read-write
  // a[99] = 0u; a comment is not code
  a_copy[i] = a[5];     // read (a_copy is another array)
  if (a[6] <= a[7]) return;
}
)";
  const auto r = gpgpu::detail::instrument_array_accesses(src, "a", 79);
  EXPECT_EQ(r.sites, 12u);
  const auto& s = r.source;
  EXPECT_NE(s.find("a[gpgpu_trace_touch(i, 2u)] = 1u"), std::string::npos) << s;
  EXPECT_NE(s.find("a[gpgpu_trace_touch(i + 1u, 3u)] += 2u"), std::string::npos) << s;
  EXPECT_NE(s.find("a[gpgpu_trace_touch(2u * i, 1u)]"), std::string::npos) << s;
  EXPECT_NE(s.find("a[gpgpu_trace_touch(i, 1u)] == x"), std::string::npos) << s;
  EXPECT_NE(s.find("a[gpgpu_trace_touch(0, 3u)] <<= 1u"), std::string::npos) << s;
  EXPECT_NE(s.find("a[gpgpu_trace_touch(a[gpgpu_trace_touch(i, 1u)], 3u)]++"), std::string::npos)
      << s;
  EXPECT_NE(s.find("atomicAdd(a[gpgpu_trace_touch(3, 3u)], 1u)"), std::string::npos) << s;
  EXPECT_NE(s.find("++a[gpgpu_trace_touch(4, 3u)]"), std::string::npos) << s;
  EXPECT_NE(s.find("// a[99] = 0u;"), std::string::npos) << s;
  EXPECT_NE(s.find("a_copy[i] = a[gpgpu_trace_touch(5, 1u)]"), std::string::npos) << s;
  EXPECT_NE(s.find("a[gpgpu_trace_touch(6, 1u)] <= a[gpgpu_trace_touch(7, 1u)]"), std::string::npos)
      << s;
  // Declarations stay as they are; the helpers sit on the layout line (line numbers kept).
  EXPECT_NE(s.find("{ uint a[]; }"), std::string::npos) << s;
  EXPECT_EQ(count_of(s, "\n"), count_of(src, "\n"));
  EXPECT_NE(s.find("binding = 79) buffer GpgpuTraceLog"), std::string::npos) << s;
  EXPECT_LT(s.find("GpgpuTraceLog"), s.find("buffer A"));
}

TEST(TraceInstrument, SharedArraysAndErrors) {
  const std::string src = R"(layout(local_size_x = 8) in;
shared float tile[8 * 9];
void main() { tile[gl_LocalInvocationIndex] = 1.0; })";
  const auto r = gpgpu::detail::instrument_array_accesses(src, "tile", 7);
  EXPECT_EQ(r.sites, 1u);
  EXPECT_NE(r.source.find("shared float tile[8 * 9];"), std::string::npos) << r.source;
  EXPECT_THROW(gpgpu::detail::instrument_array_accesses(src, "other", 7), gpgpu::ArgumentError);
  EXPECT_THROW(gpgpu::detail::instrument_array_accesses("void main() { a[0] = 1.0; }", "a", 7),
               gpgpu::ArgumentError);  // no local_size declaration
  EXPECT_THROW(gpgpu::detail::instrument_array_accesses(src, "1x", 7), gpgpu::ArgumentError);
}

constexpr const char* kStridedCopy = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Src { float src[]; };
layout(std430, binding = 1) writeonly buffer Dst { float dst[]; };
uniform uint stride;
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) dst[i] = src[i * stride];
})";

TEST(TracedKernel, CoalescedAndStridedReads) {
  const std::size_t n = 1024;
  for (const std::uint32_t stride : {1u, 32u}) {
    SCOPED_TRACE("stride " + std::to_string(stride));
    const auto src = random_floats(n * stride);
    std::vector<float> dst(n, poison_float());
    TracedKernel traced(context(), kStridedCopy, TraceOptions{.buffer = "src"});
    EXPECT_EQ(traced.sites(), 1u);
    const auto trace = traced.run({{"src", src}, {"dst", gpgpu::out(dst)}, {"stride", stride}}, n);
    // The instrumented kernel computes what the kernel computes.
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(dst[i], src[i * stride]) << "element " << i;
    EXPECT_EQ(trace.buffer, "src");
    EXPECT_EQ(trace.glsl_type, "float");
    EXPECT_EQ(trace.element_bytes, 4u);
    EXPECT_EQ(trace.group_size, 64u);
    EXPECT_EQ(trace.total_accesses, n);
    EXPECT_FALSE(trace.truncated);
    ASSERT_EQ(trace.accesses.size(), n);
    std::vector<int> seen(n, 0);
    for (const auto& a : trace.accesses) {
      ASSERT_LT(a.invocation, n);
      EXPECT_EQ(a.element, a.invocation * stride);
      EXPECT_EQ(a.kind, AccessKind::Read);
      ++seen[a.invocation];
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
    const auto reads = trace.coalescing(AccessKind::Read);
    EXPECT_EQ(reads.accesses, n);
    EXPECT_EQ(reads.requests, n / 32);
    EXPECT_DOUBLE_EQ(reads.ideal_sectors_per_request, 4.0);  // 32 floats: 128 bytes
    EXPECT_DOUBLE_EQ(reads.sectors_per_request, stride == 1 ? 4.0 : 32.0);
    EXPECT_EQ(trace.coalescing(AccessKind::Write).accesses, 0u);
    EXPECT_NE(trace.summary().find("reads: 1024 accesses"), std::string::npos) << trace.summary();
  }
}

// 32 x 8 work groups, or 32 x 4 where the device's hold fewer than 256 invocations (OpenGL ES
// 3.1 guarantees 128).
int group_rows() {
  return context().info().max_compute_work_group_invocations >= 256 ? 8 : 4;
}

TEST(TracedKernel, NaiveTransposeWritesExactlyWhereExpected) {
  const std::size_t rows = 40, cols = 72;  // not multiples of the 32 x 8 group
  const auto in = random_floats(rows * cols);
  std::vector<float> out(in.size(), poison_float());
  TracedKernel traced(context(),
                      gpgpu::transpose_kernel_source(gpgpu::TransposeMethod::Naive,
                                                     gpgpu::ElementType::Float32, 32, group_rows()),
                      TraceOptions{.buffer = "Out"});  // by block name
  const auto trace = traced.run({{"src", in},
                                 {"dst", gpgpu::out(out)},
                                 {"rows", static_cast<std::uint32_t>(rows)},
                                 {"cols", static_cast<std::uint32_t>(cols)}},
                                gpgpu::Size3{cols, rows, 1});
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) ASSERT_EQ(out[c * rows + r], in[r * cols + c]);
  }
  EXPECT_EQ(trace.buffer, "dst");
  ASSERT_EQ(trace.accesses.size(), rows * cols);
  // Groups of 32 x R over a grid of ceil(72/32) = 3 by ceil(40/R) groups, numbered x fastest.
  const auto rows_per_group = static_cast<std::uint32_t>(group_rows());
  std::set<std::uint32_t> invocations;
  for (const auto& a : trace.accesses) {
    EXPECT_EQ(a.kind, AccessKind::Write);
    const std::uint32_t group = a.invocation / (32 * rows_per_group),
                        local = a.invocation % (32 * rows_per_group);
    const std::uint32_t c = (group % 3) * 32 + local % 32,
                        r = (group / 3) * rows_per_group + local / 32;
    ASSERT_LT(c, cols);
    ASSERT_LT(r, rows);
    EXPECT_EQ(a.element, c * rows + r) << "invocation " << a.invocation;
    invocations.insert(a.invocation);
  }
  EXPECT_EQ(invocations.size(), rows * cols);
  const auto writes = trace.coalescing(AccessKind::Write);
  // A warp is one row of the group: 32 columns, each write rows * 4 = 160 bytes apart.
  // Warps cut off by the matrix edge (8 invocations at column 64..71) touch fewer sectors.
  EXPECT_GT(writes.sectors_per_request, 20.0);
  EXPECT_LT(writes.efficiency(), 0.2);
}

TEST(TracedKernel, TiledTransposeCoalescesBothWays) {
  const std::size_t rows = 64, cols = 96;
  const auto in = random_floats(rows * cols);
  std::vector<float> out(in.size(), poison_float());
  for (const char* array : {"src", "dst"}) {
    TracedKernel traced(
        context(),
        gpgpu::transpose_kernel_source(gpgpu::TransposeMethod::TiledPadded,
                                       gpgpu::ElementType::Float32, 32, group_rows()),
        TraceOptions{.buffer = array});
    const auto trace = traced.run_groups({{"src", in},
                                          {"dst", gpgpu::out(out)},
                                          {"rows", static_cast<std::uint32_t>(rows)},
                                          {"cols", static_cast<std::uint32_t>(cols)}},
                                         gpgpu::Size3{cols / 32, rows / 32, 1});
    EXPECT_EQ(trace.accesses.size(), rows * cols) << array;
    const auto kind = std::string(array) == "src" ? AccessKind::Read : AccessKind::Write;
    const auto s = trace.coalescing(kind);
    EXPECT_DOUBLE_EQ(s.sectors_per_request, 4.0) << array;
    EXPECT_DOUBLE_EQ(s.efficiency(), 1.0) << array;
  }
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) ASSERT_EQ(out[c * rows + r], in[r * cols + c]);
  }
}

TEST(TracedKernel, OneCallForTheCli) {
  const std::size_t n = 300;
  const auto src = random_floats(n * 2);
  std::vector<float> dst(n, poison_float());
  const auto trace = gpgpu::trace_kernel(
      context(), kStridedCopy, {{"src", src}, {"dst", gpgpu::out(dst)}, {"stride", 2u}},
      gpgpu::TraceDispatch::items(n), TraceOptions{.buffer = "dst"});
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(dst[i], src[2 * i]);
  ASSERT_EQ(trace.accesses.size(), n);
  for (const auto& a : trace.accesses) {
    EXPECT_EQ(a.element, a.invocation);
    EXPECT_EQ(a.kind, AccessKind::Write);
  }
  const auto groups = gpgpu::trace_kernel(
      context(), kStridedCopy, {{"src", src}, {"dst", gpgpu::out(dst)}, {"stride", 2u}},
      gpgpu::TraceDispatch::groups({2, 1, 1}), TraceOptions{.buffer = "src"});
  EXPECT_EQ(groups.accesses.size(), 128u);  // gpgpu_count = 2 groups of 64
  EXPECT_NE(groups.json().find("\"reads\": {\"accesses\": 128"), std::string::npos)
      << groups.json();
}

TEST(TracedKernel, CapacityTruncatesButCounts) {
  const std::size_t n = 1000;
  const auto src = random_floats(n);
  std::vector<float> dst(n, poison_float());
  TracedKernel traced(context(), kStridedCopy, TraceOptions{.buffer = "dst", .capacity = 100});
  const auto trace = traced.run({{"src", src}, {"dst", gpgpu::out(dst)}, {"stride", 1u}}, n);
  EXPECT_EQ(trace.total_accesses, n);
  EXPECT_EQ(trace.accesses.size(), 100u);
  EXPECT_TRUE(trace.truncated);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(dst[i], src[i]);
  // A second run starts a fresh log.
  const auto again = traced.run({{"src", src}, {"dst", gpgpu::out(dst)}, {"stride", 1u}}, 50);
  EXPECT_EQ(again.total_accesses, 50u);
  EXPECT_FALSE(again.truncated);
}

TEST(TracedKernel, ErrorsNameTheProblem) {
  EXPECT_THROW(TracedKernel(context(), kStridedCopy, TraceOptions{.buffer = "nothing"}),
               gpgpu::UnknownArgumentError);
  EXPECT_THROW(TracedKernel(context(), kStridedCopy, TraceOptions{.buffer = "src", .capacity = 0}),
               gpgpu::ArgumentError);
  EXPECT_THROW(TracedKernel(context(), "layout(local_size_x = 1) in; void main() { x }",
                            TraceOptions{.buffer = "x"}),
               gpgpu::CompileError);
}

TEST(AccessPicture, WritesAPngAndRejectsBadWindows) {
  const std::size_t rows = 64, cols = 64;
  const auto in = random_floats(rows * cols);
  std::vector<float> out(in.size(), poison_float());
  TracedKernel traced(context(),
                      gpgpu::transpose_kernel_source(gpgpu::TransposeMethod::Naive,
                                                     gpgpu::ElementType::Float32, 32, group_rows()),
                      TraceOptions{.buffer = "dst"});
  const auto trace = traced.run({{"src", in},
                                 {"dst", gpgpu::out(out)},
                                 {"rows", static_cast<std::uint32_t>(rows)},
                                 {"cols", static_cast<std::uint32_t>(cols)}},
                                gpgpu::Size3{cols, rows, 1});
  const auto path = std::filesystem::temp_directory_path() /
                    ("gpgpu_trace_test_" + std::to_string(gpgpu::test::seed()) + ".png");
  if (!gpgpu::access_png_supported()) {
    EXPECT_THROW(gpgpu::write_access_png(trace, path), gpgpu::UnsupportedError);
    return;
  }
  gpgpu::write_access_png(
      trace, path,
      {.title = "naive transpose", .width = 256, .panel_height = 64, .invocation_count = 512});
  std::ifstream file(path, std::ios::binary);
  char magic[8] = {};
  file.read(magic, 8);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
  file.close();
  std::filesystem::remove(path);
  gpgpu::AccessPictureOptions narrow;
  narrow.width = 10;
  EXPECT_THROW(gpgpu::write_access_png(trace, path, narrow), gpgpu::ArgumentError);
  gpgpu::AccessPictureOptions past_the_end;
  past_the_end.first_invocation = 1u << 20;
  EXPECT_THROW(gpgpu::write_access_png(trace, path, past_the_end), gpgpu::ArgumentError);
  EXPECT_THROW(gpgpu::write_access_png(trace, "/nonexistent-dir/x.png"), gpgpu::Error);
  EXPECT_THROW(gpgpu::write_access_png(gpgpu::AccessTrace{}, path), gpgpu::ArgumentError);
}

}  // namespace
