// Host arrays through a kernel and back (datapath_runner.hpp).
// saxpy: a SAXPY round trip from host arrays against its parts and against CUDA from pageable
// and pinned memory. pipeline: a large array in chunks, each run waited against run_async with
// several runs in flight (upload of chunk i+1, compute on i, download of i-1 together).
#include <algorithm>
#include <deque>

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

// Throws unless got[i] == want(i) at every `step`-th i.
void check(const char* bench, const char* what, std::span<const float> got,
           const std::function<float(std::size_t)>& want, std::size_t step = 1) {
  for (std::size_t i = 0; i < got.size(); i += step) {
    if (got[i] != want(i)) {
      throw Error(
          fmt::format("bench {} ({}): y[{}] = {}, expected {}", bench, what, i, got[i], want(i)));
    }
  }
}

// What the driver offers for the GPU to read ordinary (user) memory without a staging copy,
// for the table's note (docs/data-path.md, "Ordinary memory"): the bench reports, the engine
// uses none of these today.
std::string host_import_routes(const DeviceInfo& info) {
  const auto& egl = info.egl_extensions;
  const std::pair<const char*, const char*> routes[] = {
      {"GL_EXT_external_buffer", "buffer storage over an EGL client buffer"},
      {"GL_AMD_pinned_memory", "a buffer over a host pointer"},
      {"GL_EXT_memory_object_fd",
       "imports memory another API exported as an fd, not a host pointer"},
      {"EGL_EXT_image_dma_buf_import", "images over dma-bufs, not buffers"}};
  std::vector<std::string> text;
  for (const auto& [name, what] : routes) {
    const bool present = std::string_view(name).starts_with("EGL_")
                             ? std::find(egl.begin(), egl.end(), name) != egl.end()
                             : info.has_extension(name);
    text.push_back(fmt::format("{} {} ({})", name, present ? "yes" : "no", what));
  }
  return fmt::format("host memory import: {}", fmt::join(text, "; "));
}

constexpr const char* scale_source = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] = 2.0 * x[i] + 1.0; })";

// One row of the SAXPY table: the round trip at n = 2^e through run, run_async, with copy lanes
// off, as its parts on Buffers, zero-copy over HostBuffers and CUDA's, every result checked.
std::vector<Cell> saxpy_row(Session& env, ComputeKernel& saxpy, int e) {
  auto& ctx = env.context;
  const std::size_t n = std::size_t{1} << e;
  env.log << fmt::format("saxpy: n = 2^{} ...\n", e) << std::flush;
  // Fewer repeats for the largest sizes on a CPU device: each run is long.
  const int repeats =
      env.software() && e >= 22 ? std::min(env.options.repeats, 3) : env.options.repeats;
  const auto time = [&](const std::function<void()>& call) { return env.median_ms(call, repeats); };
  // y = y0 + 2 x exactly (small integers and halves): one run from y0.
  std::vector<float> x(n), y0(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 1024) * 0.5f;
    y0[i] = static_cast<float>(i % 7) + 1.0f;
  }
  std::vector<float> y = y0;
  const auto check_y = [&](std::span<const float> got, const char* what) {
    check("saxpy", what, got, [&](std::size_t i) { return y0[i] + 2.0f * x[i]; });
  };
  const auto run = [&] { saxpy.run({{"x", x}, {"y", y}, {"alpha", 2.0f}}); };
  const auto run_async = [&] { saxpy.run_async({{"x", x}, {"y", y}, {"alpha", 2.0f}}).wait(); };
  // Correctness first, from y0.
  run();
  check_y(y, "host arrays");
  y = y0;
  run_async();
  check_y(y, "run_async");

  const double round_trip = time(run);
  // With copy lanes on (GPUs), the same round trip with every copy in the Context's context.
  double in_order = -1;
  if (ctx.data_path_stats().copy_context) {
    const DataPathOptions original = ctx.data_path();
    DataPathOptions lanes_off = original;
    lanes_off.copy_context = -1;
    ctx.set_data_path(lanes_off);
    in_order = time(run);
    ctx.set_data_path(original);
  }
  const double async = time(run_async);

  // The parts: the same work on Buffers, each part waited.
  Buffer dx(ctx, ElementType::Float32, n), dy(ctx, ElementType::Float32, n);
  const double up = time([&] {
    dx.upload(std::span<const float>(x));
    dy.upload(std::span<const float>(y0));
    ctx.finish();
  });
  const double resident = time([&] {
    saxpy.run({{"x", dx}, {"y", dy}, {"alpha", 2.0f}});
    ctx.finish();
  });
  const double down = time([&] { dy.download(std::span<float>(y)); });
  // Zero-copy: x and y in HostBuffers the kernel reads and writes over the bus (no copies).
  HostBuffer hx(ctx, ElementType::Float32, n, HostAccess::Write);
  HostBuffer hy(ctx, ElementType::Float32, n, HostAccess::ReadWrite);
  std::copy(x.begin(), x.end(), hx.span<float>().begin());
  std::copy(y0.begin(), y0.end(), hy.span<float>().begin());
  const HostBuffer& hx_in = hx;
  const auto zero_copy = [&] { saxpy.run({{"x", hx_in}, {"y", hy}, {"alpha", 2.0f}}); };
  zero_copy();
  check_y(hy.span<float>(), "HostBuffer");
  const double zero = time(zero_copy);
  double cuda_pageable = -1, cuda_pinned = -1;
#if GPGPU_BENCH_HAVE_CUDA
  if (env.cuda.ok) {
    cuda_pageable = cuda_ref::saxpy_round_trip_ms(n, false, env.options.warmup, repeats);
    cuda_pinned = cuda_ref::saxpy_round_trip_ms(n, true, env.options.warmup, repeats);
  }
#endif
  const double parts = up + resident + down;
  return {fmt::format("2^{}", e),
          Cell(round_trip, 3),
          Cell::positive(in_order, 3),
          Cell(async, 3),
          fmt::format("{:.3f} = {:.3f} + {:.3f} + {:.3f}", parts, up, resident, down),
          ratio_text(round_trip, parts),
          Cell::positive(cuda_pageable, 3),
          Cell::positive(cuda_pinned, 3),
          ratio_text(cuda_pageable, round_trip),
          ratio_text(cuda_pinned, round_trip),
          Cell(gbps(3.0 * double(n) * 4, round_trip), 2),
          Cell(zero, 3),
          ratio_text(cuda_pinned, zero)};
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
  for (const int e : log2_sizes) table.add(saxpy_row(env, saxpy, e));
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
  const int repeats = std::min(env.options.repeats, env.software() ? 3 : 5);
  const DataPathOptions original = env.context.data_path();
  std::string lanes_note = "copy lanes: on";
  for (const std::size_t chunks : {std::size_t{8}, std::size_t{16}}) {
    const std::size_t n = total / chunks;
    const auto args = [&](std::size_t c) {
      return Args{{"x", std::span<const float>(in.data() + c * n, n)},
                  {"y", Arg(std::span<float>(out.data() + c * n, n)).with_access(Access::Write)}};
    };
    const auto sequential = [&] {
      for (std::size_t c = 0; c < chunks; ++c) scale.run(args(c));
    };
    const auto overlapped = [&](std::size_t depth) {
      std::deque<PendingRun> flight;
      for (std::size_t c = 0; c < chunks; ++c) {
        if (flight.size() >= depth) {
          flight.front().wait();
          flight.pop_front();
        }
        flight.push_back(scale.run_async(args(c)));
      }
      for (auto& f : flight) f.wait();
    };
    // Timed from a poisoned `out`, then checked.
    const auto time = [&](const std::function<void()>& call, const char* what) {
      std::fill(out.begin(), out.end(), -1.0f);
      const double ms = env.median_ms(call, repeats);
      check(
          "pipeline", what, out, [&](std::size_t i) { return 2.0f * in[i] + 1.0f; }, 61);
      return ms;
    };
    double in_order = -1;
    for (const bool lanes : {false, true}) {
      // Copy lanes off: every copy in the Context's own context, in order with the kernels. On:
      // persistently mapped staging and the delivery thread, which the lanes need.
      DataPathOptions o = original;
      o.copy_context = lanes ? 1 : -1;
      if (lanes && o.staging != StagingMode::PersistentMapped) {
        if (!env.context.info().has_buffer_storage()) {
          lanes_note = "copy lanes: not measured (no GL_EXT_buffer_storage for their staging)";
          continue;
        }
        o.staging = StagingMode::PersistentMapped;  // on a CPU device only to show the path works
        o.delivery_thread = 0;
      }
      env.context.set_data_path(o);
      const auto stats = env.context.data_path_stats();
      if (lanes && !stats.copy_context) {
        lanes_note = "copy lanes: could not start (" + stats.copy_context_failure + ")";
        continue;
      }
      env.log << fmt::format("pipeline: {} chunks, copy lanes {} ...\n", chunks,
                             lanes ? "on" : "off")
              << std::flush;
      const double seq = time(sequential, "sequential");
      if (!lanes) in_order = seq;
      for (const std::size_t depth : {std::size_t{2}, std::size_t{4}}) {
        const double over = time([&] { overlapped(depth); }, "overlapped");
        table.add({Cell(chunks), Cell(depth), lanes ? "on" : "off", Cell(seq, 2), Cell(over, 2),
                   ratio_text(seq, over), ratio_text(in_order, over),
                   Cell(2.0 * static_cast<double>(bytes) / (over * 1e6), 2)});
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
