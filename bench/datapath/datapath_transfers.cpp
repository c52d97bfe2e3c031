// Host arrays through a kernel and back (datapath_runner.hpp).
// saxpy: a SAXPY round trip from host arrays against its parts and against CUDA from pageable
// and pinned memory. pipeline: a large array in chunks, each run waited against run_async with
// several runs in flight (upload of chunk i+1, compute on i, download of i-1 together).
#include <algorithm>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "datapath_runner.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/host_buffer.hpp"
#if GPGPU_BENCH_HAVE_CUDA
#include "cuda_datapath.hpp"
#endif

namespace gpgpu::bench::datapath {

namespace {

struct Inputs {
  std::vector<float> x, y, y0;
  explicit Inputs(std::size_t n) : x(n), y(n), y0(n) {
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = static_cast<float>(i % 1024) * 0.5f;
      y0[i] = static_cast<float>(i % 7) + 1.0f;
    }
    y = y0;
  }
  // y = y0 + 2 x exactly (small integers and halves): one run from y0.
  void check(const std::vector<float>& got, const char* what) const {
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i] != y0[i] + 2.0f * x[i]) {
        throw Error(fmt::format("bench saxpy ({}): y[{}] = {} but should be {}", what, i, got[i],
                                y0[i] + 2.0f * x[i]));
      }
    }
  }
};

// What the driver offers for the GPU to read ordinary (user) memory without a staging copy,
// for the table's note (docs/data-path.md, "Ordinary memory"): the bench reports, the engine
// uses none of these today.
std::string host_import_routes(const DeviceInfo& info) {
  const auto& egl = info.egl_extensions;
  const bool dma_buf =
      std::find(egl.begin(), egl.end(), "EGL_EXT_image_dma_buf_import") != egl.end();
  const std::tuple<const char*, bool, const char*> routes[] = {
      {"GL_EXT_external_buffer", info.has_extension("GL_EXT_external_buffer"),
       "buffer storage over an EGL client buffer"},
      {"GL_AMD_pinned_memory", info.has_extension("GL_AMD_pinned_memory"),
       "a buffer over a host pointer"},
      {"GL_EXT_memory_object_fd", info.has_extension("GL_EXT_memory_object_fd"),
       "imports memory another API exported as an fd, not a host pointer"},
      {"EGL_EXT_image_dma_buf_import", dma_buf, "images over dma-bufs, not buffers"}};
  std::vector<std::string> text;
  for (const auto& [name, present, what] : routes)
    text.push_back(fmt::format("{} {} ({})", name, present ? "yes" : "no", what));
  return fmt::format("host memory import: {}", fmt::join(text, "; "));
}

struct Row {
  double run = -1, run_in_order = -1, async = -1, up = -1, resident = -1, down = -1,
         cuda_pageable = -1, cuda_pinned = -1, zero_copy = -1;
};

Row measure(Session& env, ComputeKernel& saxpy, std::size_t n, int repeats) {
  auto& ctx = env.context;
  Inputs in(n);
  Row r;
  const auto time = [&](const std::function<void()>& call) { return env.median_ms(call, repeats); };
  const auto run = [&] { saxpy.run({{"x", in.x}, {"y", in.y}, {"alpha", 2.0f}}); };
  const auto run_async = [&] {
    saxpy.run_async({{"x", in.x}, {"y", in.y}, {"alpha", 2.0f}}).wait();
  };
  // Correctness first, from y0.
  run();
  in.check(in.y, "host arrays");
  in.y = in.y0;
  run_async();
  in.check(in.y, "run_async");

  r.run = time(run);
  // With copy lanes on (GPUs), the same round trip with every copy in the Context's context.
  if (ctx.data_path_stats().copy_context) {
    const DataPathOptions original = ctx.data_path();
    DataPathOptions in_order = original;
    in_order.copy_context = -1;
    ctx.set_data_path(in_order);
    r.run_in_order = time(run);
    ctx.set_data_path(original);
  }
  r.async = time(run_async);

  // The parts: the same work on Buffers, each part waited.
  Buffer x(ctx, ElementType::Float32, n), y(ctx, ElementType::Float32, n);
  r.up = time([&] {
    x.upload(std::span<const float>(in.x));
    y.upload(std::span<const float>(in.y0));
    ctx.finish();
  });
  r.resident = time([&] {
    saxpy.run({{"x", x}, {"y", y}, {"alpha", 2.0f}});
    ctx.finish();
  });
  r.down = time([&] { y.download(std::span<float>(in.y)); });
  // Zero-copy: x and y in HostBuffers the kernel reads and writes over the bus (no copies).
  HostBuffer hx(ctx, ElementType::Float32, n, HostAccess::Write);
  HostBuffer hy(ctx, ElementType::Float32, n, HostAccess::ReadWrite);
  std::copy(in.x.begin(), in.x.end(), hx.span<float>().begin());
  std::copy(in.y0.begin(), in.y0.end(), hy.span<float>().begin());
  const HostBuffer& hx_in = hx;
  const auto zero_copy = [&] { saxpy.run({{"x", hx_in}, {"y", hy}, {"alpha", 2.0f}}); };
  zero_copy();
  in.check(std::vector<float>(hy.span<float>().begin(), hy.span<float>().end()), "HostBuffer");
  r.zero_copy = time(zero_copy);
#if GPGPU_BENCH_HAVE_CUDA
  if (env.cuda.ok) {
    r.cuda_pageable = cuda_ref::saxpy_round_trip_ms(n, false, env.options.warmup, repeats);
    r.cuda_pinned = cuda_ref::saxpy_round_trip_ms(n, true, env.options.warmup, repeats);
  }
#endif
  return r;
}

}  // namespace

void run_saxpy(Session& env, const std::vector<int>& log2_sizes) {
  ComputeKernel saxpy(env.context, saxpy_source, {}, "bench saxpy");
  Table table("saxpy",
              "SAXPY round trip from host arrays: upload x and y, y += 2x, download y "
              "(wall ms, median)",
              {"n", "gpgpu run", "run, copy lanes off", "run_async+wait", "parts: up + run + down",
               "run / parts", "CUDA pageable", "CUDA pinned", "vs CUDA pageable", "vs CUDA pinned",
               "GB/s", "HostBuffer zero-copy", "zero-copy vs CUDA pinned"});
  for (const int e : log2_sizes) {
    const std::size_t n = std::size_t{1} << e;
    env.log << fmt::format("saxpy: n = 2^{} ...\n", e) << std::flush;
    // Fewer repeats for the largest sizes on a CPU device: each run is long.
    const int repeats =
        env.software() && e >= 22 ? std::min(env.options.repeats, 3) : env.options.repeats;
    const Row r = measure(env, saxpy, n, repeats);
    const double parts = r.up + r.resident + r.down;
    const double bytes = 3.0 * static_cast<double>(n) * 4;
    table.add({fmt::format("2^{}", e), Cell(r.run, 3), Cell::positive(r.run_in_order, 3),
               Cell(r.async, 3),
               fmt::format("{:.3f} = {:.3f} + {:.3f} + {:.3f}", parts, r.up, r.resident, r.down),
               ratio_text(r.run, parts), Cell::positive(r.cuda_pageable, 3),
               Cell::positive(r.cuda_pinned, 3), ratio_text(r.cuda_pageable, r.run),
               ratio_text(r.cuda_pinned, r.run), Cell(bytes / (r.run * 1e6), 2),
               Cell(r.zero_copy, 3), ratio_text(r.cuda_pinned, r.zero_copy)});
  }
  const auto stats = env.context.data_path_stats();
  table.note(
      fmt::format("data path: {} staging, {} host threads, {} KiB chunks x {}, uploads up "
                  "to {} KiB direct, delivery thread {}, copy lanes {}",
                  stats.staging, stats.host_threads, stats.chunk_bytes >> 10, stats.staging_chunks,
                  stats.direct_upload_bytes >> 10, stats.delivery_thread ? "on" : "off",
                  stats.copy_context ? "on" : "off"));
  table.note(
      "vs CUDA: CUDA's time / gpgpu's (above 1: gpgpu is faster); run / parts: the host-array "
      "run against Buffer uploads + a resident run + a download, each waited; HostBuffer "
      "zero-copy: x and y in HostBuffers bound to the kernel, which reads and writes them over "
      "the bus (the round trip's copies are the kernel's own loads and stores)");
  table.note(host_import_routes(env.context.info()));
  table.note("CUDA reference: " + env.cuda.status);
  env.finish(table);
}

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
