// variants: the measurements behind the data path's defaults — the engine's options one at a
// time around the defaults, whether the driver runs copies and compute at once (one context,
// and two contexts on two threads), matmul tiles and split-K per size, and row panels.
#include <atomic>
#include <thread>

#include <fmt/format.h>

#include "datapath_runner.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/host_buffer.hpp"
#include "gpgpu/transfer_queue.hpp"

namespace gpgpu::bench::datapath {

namespace {

constexpr std::size_t mib = std::size_t{1} << 20;

// A kernel that keeps the ALUs busy for a while (independent FMA chains, few loads).
constexpr const char* busy_source = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Y { vec4 y[]; };
uniform int rounds;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  vec4 a = y[i], b = a + 1.0, c = a + 2.0, d = a + 3.0;
  for (int r = 0; r < rounds; ++r) {
    a = fma(a, vec4(0.999), vec4(0.001)); b = fma(b, vec4(0.999), vec4(0.001));
    c = fma(c, vec4(0.999), vec4(0.001)); d = fma(d, vec4(0.999), vec4(0.001));
  }
  y[i] = a + b + c + d;
})";

void engine_options(Session& env, bool quick) {
  auto& ctx = env.context;
  const DataPathOptions defaults = ctx.data_path();
  const std::size_t bytes = quick ? 16 * mib : 256 * mib;
  Table table("engine",
              fmt::format("the engine's options, one at a time around the defaults: "
                          "{} MiB up / down, SAXPY round trips (wall ms, median)",
                          bytes >> 20),
              {"option", "value", "upload ms", "GB/s", "download ms", "GB/s", "saxpy 2^10 ms",
               "saxpy 2^20 ms", "saxpy 2^24 ms"});
  // A row with `change` applied to the defaults: upload and download of `bytes`, and SAXPY
  // round trips at 2^10, 2^20 and 2^24.
  auto row = [&](const std::string& option, const std::string& value,
                 const std::function<void(DataPathOptions&)>& change) {
    env.log << fmt::format("variants: {} = {} ...\n", option, value) << std::flush;
    try {
      DataPathOptions o = defaults;
      change(o);
      ctx.set_data_path(o);
      std::vector<float> host(bytes / 4, 1.5f), back(bytes / 4);
      Buffer device(ctx, ElementType::Float32, host.size());
      const double up = env.median_ms([&] {
        device.upload(std::span<const float>(host));
        ctx.finish();
      });
      const double down = env.median_ms([&] { device.download(std::span<float>(back)); });
      if (back != host) throw Error("bench variants: a transfer delivered wrong data");
      ComputeKernel saxpy(ctx, saxpy_source, {}, "bench saxpy");
      std::vector<Cell> cells{option,        value,
                              Cell(up, 3),   Cell(gbps(double(bytes), up), 2),
                              Cell(down, 3), Cell(gbps(double(bytes), down), 2)};
      for (const int e : {10, 20, 24}) {
        std::vector<float> x(std::size_t{1} << e, 1.0f), y(x.size(), 2.0f);
        const double ms = env.median_ms([&] { saxpy.run({{"x", x}, {"y", y}, {"alpha", 2.0f}}); });
        cells.emplace_back(ms, e == 10 ? 4 : 3);
      }
      table.add(std::move(cells));
    } catch (const Error& e) {
      table.add({option, value, std::string("failed: ") + e.what(), "", "", "", "", "", ""});
    }
  };
  row("defaults", "-", [](DataPathOptions&) {});
  for (StagingMode m : {StagingMode::PersistentMapped, StagingMode::Mapped, StagingMode::Direct})
    row("staging", to_string(m), [=](DataPathOptions& o) { o.staging = m; });
  for (std::size_t t : {1, 2, 4, 6, 8, 12, 16})
    row("host_threads", std::to_string(t), [=](DataPathOptions& o) { o.host_threads = t; });
  for (std::size_t c : {1, 2, 4, 16, 32})
    row("chunk_bytes", fmt::format("{} MiB", c),
        [=](DataPathOptions& o) { o.chunk_bytes = c * mib; });
  for (std::size_t c : {4, 16})
    row("staging_chunks", std::to_string(c), [=](DataPathOptions& o) { o.staging_chunks = c; });
  for (std::size_t d : {std::size_t{1}, 64 * std::size_t{1024}, mib, 4 * mib}) {
    row("direct_upload_bytes", fmt::format("{} KiB", d >> 10),
        [=](DataPathOptions& o) { o.direct_upload_bytes = d; });
  }
  row("delivery_thread", "off", [](DataPathOptions& o) { o.delivery_thread = -1; });
  for (const int lanes : {-1, 1}) {  // the copy lanes (docs/data-path.md, "Overlap")
    row("copy_context", lanes > 0 ? "on" : "off",
        [=](DataPathOptions& o) { o.copy_context = lanes; });
  }
  ctx.set_data_path(defaults);
  table.note("each row changes one option of the defaults (first row)");
  env.finish(table);
}

// Does the driver run a host->device copy while a kernel computes? One context issuing both,
// and two contexts on two threads (one copying, one computing).
void copy_compute_overlap(Session& env, bool quick) {
  auto& ctx = env.context;
  const std::size_t bytes = quick ? 16 * mib : 512 * mib;
  const std::size_t n = bytes / 4;
  const int rounds = quick ? 50 : 16000;  // about as long as the copy on an H100
  Table table(
      "overlap",
      fmt::format("copy ({} MiB from a HostBuffer) and compute at once? (wall ms)", bytes >> 20),
      {"how", "copy alone", "compute alone", "both", "sum", "overlap"});
  const auto add = [&](const char* how, double copy, double compute, double both) {
    table.add({how, Cell(copy, 3), Cell(compute, 3), Cell(both, 3), Cell(copy + compute, 3),
               ratio_text(copy + compute, both)});
  };
  auto one_context = [&] {
    HostBuffer pinned(ctx, ElementType::Float32, n, HostAccess::Write);
    std::fill(pinned.span<float>().begin(), pinned.span<float>().end(), 1.0f);
    Buffer target(ctx, ElementType::Float32, n);
    Buffer work(ctx, ElementType::Float32, 1 << 22);
    TransferQueue queue(ctx);
    ComputeKernel busy(ctx, busy_source, {}, "bench busy");
    const Args busy_args{{"y", work}, {"rounds", std::int32_t{rounds}}};
    const double copy = env.median_ms([&] { queue.copy(pinned, target).wait(); });
    const double compute = env.median_ms([&] {
      busy.run(busy_args, std::size_t{1} << 20);
      ctx.finish();
    });
    const double both = env.median_ms([&] {
      auto transfer = queue.copy(pinned, target);
      busy.run(busy_args, std::size_t{1} << 20);
      transfer.wait();
      ctx.finish();
    });
    add("one context: copy, then a kernel", copy, compute, both);
  };
  auto two_contexts = [&] {
    // Each thread owns its Context; they start together and each times its own loop: `run`
    // once, then (both threads ready, when `together`) 8 times and `done`.
    std::atomic<int> ready{0};
    const auto time8 = [&](bool together, const auto& run, const auto& done) {
      run();
      done();
      if (together) {
        for (++ready; ready.load() < 2;) std::this_thread::yield();
      }
      const auto start = Clock::now();
      for (int i = 0; i < 8; ++i) run();
      done();
      return ms_since(start);
    };
    auto copier = [&](bool together, double& out) {
      Context own({.device = std::to_string(ctx.info().device_index)});
      HostBuffer pinned(own, ElementType::Float32, n, HostAccess::Write);
      Buffer target(own, ElementType::Float32, n);
      TransferQueue queue(own);
      out = time8(
          together, [&] { queue.copy(pinned, target).wait(); }, [] {});
    };
    auto computer = [&](bool together, double& out) {
      Context own({.device = std::to_string(ctx.info().device_index)});
      Buffer work(own, ElementType::Float32, 1 << 22);
      ComputeKernel busy(own, busy_source, {}, "bench busy");
      const Args args{{"y", work}, {"rounds", std::int32_t{rounds}}};
      out = time8(
          together, [&] { busy.run(args, std::size_t{1} << 20); }, [&] { own.finish(); });
    };
    double copy_alone = -1, compute_alone = -1, copy_both = -1, compute_both = -1;
    std::thread(copier, false, std::ref(copy_alone)).join();
    std::thread(computer, false, std::ref(compute_alone)).join();
    std::thread a(copier, true, std::ref(copy_both)), b(computer, true, std::ref(compute_both));
    a.join();
    b.join();
    add("two contexts on two threads (8 copies | 8 kernels)", copy_alone, compute_alone,
        std::max(copy_both, compute_both));
  };
  for (const auto& [how, measure] :
       {std::pair<const char*, std::function<void()>>{"one context", one_context},
        {"two contexts", two_contexts}}) {
    try {
      measure();
    } catch (const Error& e) {
      table.note(fmt::format("{} failed: {}", how, e.what()));
    }
  }
  ctx.make_current();
  table.note("overlap: (copy alone + compute alone) / both; 2.00x is perfect overlap, 1.00x none");
  env.finish(table);
}

void matmul_tiles(Session& env, bool quick) {
  Table table("tiles", "matmul kernel GFLOPS by tile and split-K (Buffers, GL_TIME_ELAPSED)",
              {"n", "tuning", "GFLOPS", "vs Auto"});
  const std::vector<int> sizes =
      quick ? std::vector<int>{256, 512} : std::vector<int>{256, 512, 1024, 2048, 4096, 8192};
  const std::vector<MatmulTuning> tiles = {
      {128, 128, 8, 8, 8}, {128, 128, 16, 8, 8}, {128, 64, 8, 8, 8},   {64, 128, 8, 8, 8},
      {64, 64, 8, 8, 8},   {64, 64, 8, 4, 4},    {128, 256, 8, 8, 16}, {256, 128, 8, 16, 8}};
  for (const int n : sizes) {
    env.log << fmt::format("variants: tiles at n = {} ...\n", n) << std::flush;
    std::string auto_what;
    const double automatic = halves_matmul_gflops(env, n, {}, true, &auto_what);
    table.add({Cell(n), "Auto: " + auto_what, Cell(automatic, 0), "1.00x"});
    for (const auto& tile : tiles) {
      for (int split : {1, 2, 4, 8}) {
        if (split > 1 && n > 2048) continue;
        if (split > std::max(1, n / 128)) continue;
        MatmulTuning t = tile;
        t.split_k = split;
        try {
          validate_matmul_tuning(t, env.context.info());
          MatmulOptions o;
          o.method = MatmulMethod::ComputeRegisterBlocked;
          o.tuning = t;
          const double g = halves_matmul_gflops(env, n, o, true);
          table.add({Cell(n), t.to_string(), Cell(g, 0), ratio_text(g, automatic)});
        } catch (const Error& e) {
          table.add({Cell(n), t.to_string(), std::string("failed: ") + e.what(), "-"});
        }
      }
    }
  }
  env.finish(table);
}

void matmul_panels(Session& env, bool quick) {
  Table table("panels", "matmul end to end from host arrays by row panels (wall ms, median)",
              {"n", "panels", "ms", "GFLOPS"});
  for (const int n : quick ? std::vector<int>{512} : std::vector<int>{2048, 4096, 8192}) {
    env.log << fmt::format("variants: panels at n = {} ...\n", n) << std::flush;
    const auto count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    std::vector<float> a(count, 0.5f), b(count, 0.5f), c(count);
    for (int panels : {1, 2, 4, 8}) {
      MatmulOptions o;
      o.panels = panels;
      MatmulPlan plan(env.context, n, n, n, o);
      const double ms = env.median_ms([&] { plan.run(a, b, c); }, 5);
      if (c[count - 1] != 0.25f * static_cast<float>(n))
        throw Error("bench variants: panels gave a wrong C");
      table.add({Cell(n), Cell(panels), Cell(ms, 2), Cell(matmul_gflops(n, ms), 0)});
    }
  }
  env.finish(table);
}

}  // namespace

void run_variants(Session& env, bool quick) {
  engine_options(env, quick);
  copy_compute_overlap(env, quick);
  if (!env.software()) matmul_tiles(env, quick);
  if (!env.software()) matmul_panels(env, quick);
}

}  // namespace gpgpu::bench::datapath
