// pipeline: a large array through a kernel in chunks, each run waited against run_async with
// several runs in flight (upload of chunk i+1, compute on i, download of i-1 together).
#include <deque>

#include <fmt/format.h>

#include "datapath_env.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::bench::datapath {

namespace {

constexpr const char* scale_source = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] = 2.0 * x[i] + 1.0; })";

void check(const std::vector<float>& in, const std::vector<float>& out, const char* what) {
  for (std::size_t i = 0; i < in.size(); i += 61) {
    if (out[i] != 2.0f * in[i] + 1.0f) {
      throw Error(fmt::format("bench pipeline ({}): y[{}] = {}, expected {}", what, i, out[i],
                              2.0f * in[i] + 1.0f));
    }
  }
}

}  // namespace

void run_pipeline(Env& env, std::size_t bytes) {
  ComputeKernel scale(env.context, scale_source, {}, "bench pipeline");
  const std::size_t total = bytes / 4;
  std::vector<float> in(total), out(total);
  for (std::size_t i = 0; i < total; ++i) in[i] = static_cast<float>(i % 4096);
  ResultTable table("pipeline",
                    fmt::format("{} MiB through y = 2x + 1 in chunks, host arrays in and out "
                                "(wall ms, median)",
                                bytes >> 20),
                    {"chunks", "in flight", "sequential ms", "overlapped ms", "speed-up",
                     "GB/s (up + down) overlapped"});
  const int repeats = env.software() ? std::min(env.repeats, 3) : std::min(env.repeats, 5);
  for (const std::size_t chunks : {std::size_t{8}, std::size_t{16}}) {
    const std::size_t n = total / chunks;
    auto span_in = [&](std::size_t c) { return std::span<const float>(in.data() + c * n, n); };
    auto span_out = [&](std::size_t c) { return std::span<float>(out.data() + c * n, n); };
    env.log << fmt::format("pipeline: {} chunks ...\n", chunks) << std::flush;
    std::fill(out.begin(), out.end(), -1.0f);
    const double sequential = env.median_ms(
        [&] {
          for (std::size_t c = 0; c < chunks; ++c) {
            scale.run(
                {{"x", span_in(c)}, {"y", gpgpu::Arg(span_out(c)).with_access(Access::Write)}});
          }
        },
        repeats);
    check(in, out, "sequential");
    for (const std::size_t depth : {std::size_t{2}, std::size_t{4}}) {
      std::fill(out.begin(), out.end(), -1.0f);
      const double overlapped = env.median_ms(
          [&] {
            std::deque<PendingRun> flight;
            for (std::size_t c = 0; c < chunks; ++c) {
              if (flight.size() >= depth) {
                flight.front().wait();
                flight.pop_front();
              }
              flight.push_back(scale.run_async(
                  {{"x", span_in(c)}, {"y", gpgpu::Arg(span_out(c)).with_access(Access::Write)}}));
            }
            for (auto& f : flight) f.wait();
          },
          repeats);
      check(in, out, "overlapped");
      table.add({Cell(chunks), Cell(depth), Cell(sequential, 2), Cell(overlapped, 2),
                 ratio(sequential, overlapped),
                 Cell(2.0 * static_cast<double>(bytes) / (overlapped * 1e6), 2)});
    }
  }
  table.note(
      "sequential: run() per chunk (each waits for its results); overlapped: run_async() with "
      "up to `in flight` runs pending, so the host copies chunk i+1 in while chunk i computes "
      "and chunk i-1 is delivered");
  env.finish(table);
}

}  // namespace gpgpu::bench::datapath
