// pipeline: a large array through a kernel in chunks, each run waited against run_async with
// several runs in flight (upload of chunk i+1, compute on i, download of i-1 together).
#include <deque>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "datapath.hpp"
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

// The engine's options for one mode of the table: copy lanes off (every copy in the
// Context's own context, in order with the kernels) or on (persistently mapped staging and the
// delivery thread, which the lanes need). Empty where the device cannot have the mode.
std::optional<DataPathOptions> mode_options(const Context& ctx, const DataPathOptions& original,
                                            bool lanes) {
  DataPathOptions o = original;
  o.copy_context = lanes ? 1 : -1;
  if (lanes && o.staging != StagingMode::PersistentMapped) {
    if (!ctx.info().has_buffer_storage()) return std::nullopt;
    o.staging = StagingMode::PersistentMapped;  // on a CPU device only to show the path works
    o.delivery_thread = 0;
  }
  return o;
}

struct Timing {
  double sequential = -1;
  std::vector<double> overlapped;  // per depth
};

}  // namespace

void run_pipeline(Session& env, std::size_t bytes) {
  ComputeKernel scale(env.context, scale_source, {}, "bench pipeline");
  const std::size_t total = bytes / 4;
  std::vector<float> in(total), out(total);
  for (std::size_t i = 0; i < total; ++i) in[i] = static_cast<float>(i % 4096);
  Table table("pipeline",
              fmt::format("{} MiB through y = 2x + 1 in chunks, host arrays in and out "
                          "(wall ms, median)",
                          bytes >> 20),
              {"chunks", "in flight", "copy lanes", "sequential ms", "overlapped ms", "speed-up",
               "vs in-order sequential", "GB/s (up + down) overlapped"});
  const int repeats =
      env.software() ? std::min(env.options.repeats, 3) : std::min(env.options.repeats, 5);
  const std::vector<std::size_t> depths = {2, 4};
  const DataPathOptions original = env.context.data_path();
  std::string lanes_note = "copy lanes: on";
  for (const std::size_t chunks : {std::size_t{8}, std::size_t{16}}) {
    const std::size_t n = total / chunks;
    auto span_in = [&](std::size_t c) { return std::span<const float>(in.data() + c * n, n); };
    auto span_out = [&](std::size_t c) { return std::span<float>(out.data() + c * n, n); };
    auto sequential = [&] {
      for (std::size_t c = 0; c < chunks; ++c) {
        scale.run({{"x", span_in(c)}, {"y", gpgpu::Arg(span_out(c)).with_access(Access::Write)}});
      }
    };
    auto overlapped = [&](std::size_t depth) {
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
    };
    Timing in_order;
    for (const bool lanes : {false, true}) {
      const auto options = mode_options(env.context, original, lanes);
      if (!options) {
        lanes_note = "copy lanes: not measured (no GL_EXT_buffer_storage for their staging)";
        continue;
      }
      env.context.set_data_path(*options);
      const auto stats = env.context.data_path_stats();
      if (lanes && !stats.copy_context) {
        lanes_note = "copy lanes: could not start (" + stats.copy_context_failure + ")";
        continue;
      }
      env.log << fmt::format("pipeline: {} chunks, copy lanes {} ...\n", chunks,
                             lanes ? "on" : "off")
              << std::flush;
      Timing t;
      std::fill(out.begin(), out.end(), -1.0f);
      t.sequential = env.median_ms(sequential, repeats);
      check(in, out, "sequential");
      for (const std::size_t depth : depths) {
        std::fill(out.begin(), out.end(), -1.0f);
        t.overlapped.push_back(env.median_ms([&] { overlapped(depth); }, repeats));
        check(in, out, "overlapped");
      }
      if (!lanes) in_order = t;
      for (std::size_t d = 0; d < depths.size(); ++d) {
        table.add({Cell(chunks), Cell(depths[d]), lanes ? "on" : "off", Cell(t.sequential, 2),
                   Cell(t.overlapped[d], 2), ratio_text(t.sequential, t.overlapped[d]),
                   ratio_text(in_order.sequential, t.overlapped[d]),
                   Cell(2.0 * static_cast<double>(bytes) / (t.overlapped[d] * 1e6), 2)});
      }
    }
  }
  env.context.set_data_path(original);
  table.note(
      "sequential: run() per chunk (each waits for its results); overlapped: run_async() with "
      "up to `in flight` runs pending, so the host copies chunk i+1 in while chunk i computes "
      "and chunk i-1 is delivered; copy lanes on: the GPU copies of each run's arguments are "
      "issued from two shared contexts on threads of their own (DataPathOptions::copy_context), "
      "so the GPU may run the copies of one run beside the kernel of another; vs in-order "
      "sequential: the lanes-off sequential time / this row's overlapped time");
  table.note(lanes_note);
  env.finish(table);
}

}  // namespace gpgpu::bench::datapath
