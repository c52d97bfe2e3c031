// `gpgpu bench memory` (memory_runner.hpp): the sizes resolved for the device, then the
// chosen benchmarks on one harness Session: host <-> device transfers, and inside the device
// element-wise bandwidth, transpose, particle layouts (SoA vs AoS) and work-group sizes.
#include "memory_runner.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/host_buffer.hpp"
#include "gpgpu/transfer_queue.hpp"
#include "gpgpu/transpose.hpp"
#include "gpgpu/work_group.hpp"
#include "particles.hpp"
#if GPGPU_BENCH_HAVE_CUDA
#include "cuda_matmul.hpp"
#endif

namespace gpgpu::bench {

namespace {

MemoryBenchOptions resolve(MemoryBenchOptions o, const DeviceInfo& info) {
  // A size left 0: 2 to the power of the quick, llvmpipe or GPU default.
  const auto pick = [&](std::size_t& value, int quick, int cpu, int gpu) {
    if (value == 0) value = std::size_t{1} << (o.quick ? quick : info.is_software ? cpu : gpu);
  };
  pick(o.transfer_max_bytes, 22, 26, 30);
  pick(o.bandwidth_floats, 20, 24, 28);
  pick(o.transpose_n, 8, 10, 13);
  pick(o.particles, 14, 20, 24);
  // One array must fit one storage block.
  const auto block_floats = static_cast<std::size_t>(info.max_shader_storage_block_size) / 4;
  o.bandwidth_floats = std::min(o.bandwidth_floats, block_floats / 4 * 4);
  if (o.bandwidth_floats % 4 != 0) {
    throw ArgumentError(fmt::format(
        "bench memory: --floats {} is not a multiple of 4 (the vec4 kernels cover every float)",
        o.bandwidth_floats));
  }
  if (o.transfer_max_bytes < 4 || o.bandwidth_floats < 1024 || o.transpose_n < 4 ||
      o.particles < 64) {
    throw ArgumentError(
        "bench memory: sizes too small (transfer >= 4 bytes, bandwidth >= 1024 "
        "floats, transpose n >= 4, particles >= 64)");
  }
  return o;
}

// What the benchmarks share: a Session, the options with the sizes resolved for the device,
// and the copies they are measured against.
struct MemoryEnv : Session {
  MemoryEnv(Context& ctx, const MemoryBenchOptions& given)
      : Session(ctx,
                {given.out_dir, "memory-", given.warmup, given.repeats, given.cuda, given.log}),
        o(resolve(given, ctx.info())) {}
  MemoryBenchOptions o;

  // The CUDA reference's bandwidths in GB/s; -1 where it cannot run.
  double cuda_pinned_gbps([[maybe_unused]] std::size_t bytes,
                          [[maybe_unused]] bool host_to_device) const {
#if GPGPU_BENCH_HAVE_CUDA
    if (cuda.ok) return cuda_ref::pinned_copy_gbps(bytes, host_to_device);
#endif
    return -1;
  }
  double cuda_device_copy_gbps([[maybe_unused]] std::size_t bytes) const {
#if GPGPU_BENCH_HAVE_CUDA
    if (cuda.ok) return cuda_ref::device_copy_gbps(bytes);
#endif
    return -1;
  }
  // The device-to-device copy bandwidth of TransferQueue::copy (read + write counted).
  double gl_copy_gbps(const Buffer& from, Buffer& to) const {
    TransferQueue queue(context);
    const std::size_t n = std::min(from.size(), to.size());
    const Timing t = profile([&] { queue.copy(from, to, 0, 0, n).wait(); });
    return gbps(2.0 * static_cast<double>(n) * 4, t.kernel_ms());
  }
};

// ---- transfer: host <-> device bandwidth by method, and chunked upload + compute + download

constexpr std::size_t mib = std::size_t{1} << 20;

TransferOptions queue_options(TransferMethod method, std::size_t bytes, std::size_t threads = 1) {
  // Chunks of a quarter of the transfer, between 1 and 16 MiB, four in flight.
  return TransferOptions{method, std::clamp(bytes / 4, mib, 16 * mib), 4, threads};
}

void check(bool ok, const std::string& what) {
  if (!ok) throw Error("bench transfer: " + what + " delivered wrong data");
}

void overlap_table(MemoryEnv& env, std::size_t bytes) {
  auto& ctx = env.context;
  const std::size_t chunks = 8;
  const std::size_t n = std::max<std::size_t>(bytes / 4 / chunks, 1);
  std::vector<float> in(n * chunks), out(n * chunks);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 4096);
  ComputeKernel scale(ctx, R"(
    layout(local_size_x = 256) in;
    layout(std430, binding = 0) readonly buffer X { float x[]; };
    layout(std430, binding = 1) writeonly buffer Y { float y[]; };
    void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] = 2.0 * x[i]; })",
                      {}, "bench scale");
  Buffer x[2] = {Buffer(ctx, ElementType::Float32, n), Buffer(ctx, ElementType::Float32, n)};
  Buffer y[2] = {Buffer(ctx, ElementType::Float32, n), Buffer(ctx, ElementType::Float32, n)};
  const auto chunk = [&](std::vector<float>& v, std::size_t c) {
    return std::span<float>(v.data() + c * n, n);
  };

  const auto sequential = env.profile([&] {
    for (std::size_t c = 0; c < chunks; ++c) {
      x[0].upload(std::span<const float>(chunk(in, c)));
      scale.run({{"x", x[0]}, {"y", y[0]}}, n);
      y[0].download(chunk(out, c));
    }
  });
  check(out.back() == 2.0f * in.back(), "sequential pipeline");
  std::fill(out.begin(), out.end(), -1.0f);
  TransferQueue queue(ctx, queue_options(TransferMethod::Auto, n * 4));
  const auto overlapped = env.profile([&] {
    std::vector<PendingTransfer> downloads;
    for (std::size_t c = 0; c < chunks; ++c) {
      queue.upload(x[c % 2], std::span<const float>(chunk(in, c)));
      scale.run({{"x", x[c % 2]}, {"y", y[c % 2]}}, n);
      downloads.push_back(queue.download(y[c % 2], chunk(out, c)));
    }
    for (auto& d : downloads) d.wait();
  });
  for (std::size_t i = 0; i < out.size(); i += 997)
    check(out[i] == 2.0f * in[i], "overlapped pipeline");

  Table table("overlap",
              fmt::format("upload + compute + download of {} MiB in {} chunks",
                          n * chunks * 4 / mib, chunks),
              {"pipeline", "median ms", "GB/s (up + down)", "speed-up"});
  const double moved = 2.0 * static_cast<double>(n * chunks) * 4;
  for (const auto& [name, t] :
       {std::pair{std::string("sequential: Buffer::upload, run, Buffer::download"), sequential},
        {fmt::format("overlapped: TransferQueue ({}), 2 buffer pairs", to_string(queue.method())),
         overlapped}}) {
    table.add({name, Cell(t.wall_ms, 3), Cell(gbps(moved, t.wall_ms)),
               ratio(sequential.wall_ms, t.wall_ms)});
  }
  table.note("wall time (fenced): the whole pipeline as the caller waits for it");
  env.finish(table);
}

void run_transfer_bench(MemoryEnv& env) {
  auto& ctx = env.context;
  const bool storage = ctx.info().has_buffer_storage();
  // Host threads for the multi-threaded rows: up to 4, leaving the GL driver a core.
  const unsigned cores = std::thread::hardware_concurrency();
  const std::size_t threads = std::clamp<std::size_t>(cores > 1 ? cores - 1 : 1, 1, 4);
  Table table("transfer", "host <-> device transfers (fenced wall time)",
              {"direction", "method", "MiB", "median ms", "GB/s", "vs CUDA pinned"});
  // 1 MiB, x16, ..., and the largest.
  std::vector<std::size_t> sizes;
  const std::size_t max_bytes = env.o.transfer_max_bytes;
  for (std::size_t s = std::min(mib, max_bytes); s < max_bytes; s *= 16) sizes.push_back(s);
  sizes.push_back(max_bytes / 4 * 4);
  for (const std::size_t bytes : sizes) {
    const std::size_t n = bytes / 4;
    env.log << fmt::format("transfer: {:.2f} MiB ...\n", static_cast<double>(bytes) / mib);
    std::vector<float> host(n), back(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 65536);
    Buffer device(ctx, ElementType::Float32, n);
    const double cuda_up = env.cuda_pinned_gbps(bytes, true);
    const double cuda_down = env.cuda_pinned_gbps(bytes, false);
    const Cell size(static_cast<double>(bytes) / mib, bytes < mib ? 3 : 0);
    for (const bool up : {true, false}) {
      const auto row = [&](std::string method, const std::function<void()>& call) {
        const double ms = env.profile(call).wall_ms, g = gbps(static_cast<double>(bytes), ms);
        table.add({up ? "upload" : "download", std::move(method), size, Cell(ms, 3), Cell(g),
                   ratio(g, up ? cuda_up : cuda_down)});
      };
      if (up) {
        std::vector<Buffer> made;  // freed after timing, so deletion is not timed
        row("glBufferData (a new Buffer::from)", [&] { made.push_back(Buffer::from(ctx, host)); });
        made.clear();
        row("glBufferSubData (Buffer::upload)", [&] { device.upload(host); });
      } else {
        device.download(std::span<float>(back));
        check(back == host, "upload");
        std::fill(back.begin(), back.end(), -1.0f);
        row("glMapBufferRange read (Buffer::download)",
            [&] { device.download(std::span<float>(back)); });
      }
      const auto queued = [&](std::string method, TransferMethod how, std::size_t host_threads) {
        TransferQueue q(ctx, queue_options(how, bytes, host_threads));
        row(std::move(method),
            [&] { (up ? q.upload(device, host) : q.download(device, back)).wait(); });
      };
      queued("staging buffers mapped by glMapBufferRange", TransferMethod::StagingBuffers, 1);
      if (!storage) continue;
      queued("persistent-mapped staging (TransferQueue)", TransferMethod::PersistentMapped, 1);
      if (threads > 1) {
        queued(fmt::format("persistent-mapped staging, {} host threads", threads),
               TransferMethod::PersistentMapped, threads);
      }
      TransferQueue q(ctx, queue_options(TransferMethod::PersistentMapped, bytes));
      HostBuffer pinned(ctx, ElementType::Float32, n, up ? HostAccess::Write : HostAccess::Read);
      if (up) std::copy(host.begin(), host.end(), pinned.span<float>().begin());
      row("persistently mapped HostBuffer (GPU copy only)",
          [&] { (up ? q.copy(pinned, device) : q.copy(device, pinned)).wait(); });
      if (!up) {
        check(std::equal(host.begin(), host.end(), pinned.span<const float>().begin()),
              "HostBuffer download");
      }
    }
    check(back == host, "download");
    for (const bool up : {true, false}) {
      if (cuda_up <= 0) break;
      table.add({up ? "upload" : "download", "CUDA pinned cudaMemcpy (reference)", size,
                 Cell::missing(), Cell(up ? cuda_up : cuda_down), ratio(1.0, 1.0)});
    }
  }
  if (!storage) table.note("no GL_EXT_buffer_storage: the persistent-mapped rows are missing");
  table.note(
      "GPU copy only: the data already sits in mapped host memory, as with CUDA pinned "
      "memory; the other rows start from an ordinary std::vector");
  table.note("CUDA reference: " + env.cuda.status);
  env.finish(table);
  overlap_table(env, env.o.transfer_max_bytes);
}

// ---- Inside the device

// y[i] = APPLY. Invocation t handles elements t, t + T, t + 2T... (T = the invocations
// dispatched), so at every step neighbours touch neighbours: PER_THREAD elements each, or,
// with GRID_STRIDE, as many as it takes.
constexpr const char* elementwise_source = R"(
layout(local_size_x = LOCAL) in;
// RESTRICT: no other binding aliases these arrays, so the compiler may keep x in the
// read-only cache path and reorder loads.
layout(std430, binding = 0) RESTRICT readonly buffer X { T x[]; };
layout(std430, binding = 1) RESTRICT Y_ACCESS buffer Y { T y[]; };
#if ALPHA
uniform float alpha;
#endif
uniform uint n;
void main() {
  uint t = gpgpu_index();
  uint stride = gpgpu_count;
  // The last work group may hold invocations past the count: their t + k * stride would
  // repeat another invocation's elements (SAXPY twice).
  if (t >= stride) return;
#if GRID_STRIDE
  for (uint i = t; i < n; i += stride) y[i] = APPLY;
#else
  for (uint k = 0u; k < uint(PER_THREAD); ++k) {
    uint i = t + k * stride;
    if (i < n) y[i] = APPLY;
  }
#endif
})";

// The element-wise operations: what y becomes, and the bytes a float moves.
struct Op {
  const char* name;
  const char* apply;
  double bytes;
};
constexpr Op ops[] = {
    {"copy", "x[i]", 8}, {"scale", "alpha * x[i]", 8}, {"SAXPY", "alpha * x[i] + y[i]", 12}};

// The kernel of `op` over floats or vec4s, `per` elements an invocation (0: grid-stride).
ComputeKernel elementwise(const Context& ctx, const Op& op, bool vec4, std::size_t per,
                          bool restrict_qualified, int local) {
  return ComputeKernel(ctx, elementwise_source,
                       {{"T", vec4 ? "vec4" : "float"},
                        {"APPLY", op.apply},
                        {"ALPHA", &op == &ops[0] ? "0" : "1"},
                        {"Y_ACCESS", &op == &ops[2] ? "" : "writeonly"},
                        {"PER_THREAD", std::to_string(std::max<std::size_t>(per, 1))},
                        {"GRID_STRIDE", per == 0 ? "1" : "0"},
                        {"RESTRICT", restrict_qualified ? "restrict" : ""},
                        {"LOCAL", std::to_string(local)}},
                       fmt::format("bench {}", op.name));
}

void run_bandwidth_bench(MemoryEnv& env) {
  auto& ctx = env.context;
  const std::size_t n = env.o.bandwidth_floats;
  env.log << fmt::format("bandwidth: {} floats ({} MiB per array) ...\n", n, n * 4 >> 20);
  std::vector<float> xs(n), result(n);
  for (std::size_t i = 0; i < n; ++i) xs[i] = static_cast<float>(i % 1000) * 0.001f;
  Buffer x = Buffer::from(ctx, xs);
  Buffer y_init = Buffer::from(ctx, std::vector<float>(n, 1.0f));
  Buffer y(ctx, ElementType::Float32, n);
  TransferQueue queue(ctx);

  const double gl_copy = env.gl_copy_gbps(x, y);
  const double cuda_copy = env.cuda_device_copy_gbps(n * 4);
  const int local = preferred_work_group_size(ctx);
  // Enough invocations for any current GPU, fewer than elements: each loops.
  const std::size_t grid_invocations = std::min<std::size_t>(n / 4, std::size_t{1} << 20);

  Table table(
      "bandwidth",
      fmt::format("element-wise kernels over {} floats ({} MiB per array), work group {}", n,
                  n * 4 >> 20, local),
      {"kernel", "storage", "per invocation", "median ms", "GB/s", "vs GL copy", "vs CUDA copy"});
  table.add({"device copy: TransferQueue::copy", "-", "-", Cell::missing(), Cell(gl_copy),
             ratio(1.0, 1.0), ratio(gl_copy, cuda_copy)});
  if (cuda_copy > 0) {
    table.add({"device copy: CUDA cudaMemcpy", "-", "-", Cell::missing(), Cell(cuda_copy),
               ratio(cuda_copy, gl_copy), ratio(1.0, 1.0)});
  }
  const float alpha = 0.5f;
  for (const Op& op : ops) {
    const bool is_copy = &op == &ops[0], saxpy = &op == &ops[2];
    // Floats, then vec4s, 1 to 8 elements an invocation or a grid-stride loop (0); for copy
    // also 4 vec4s without restrict: what restrict is worth.
    for (int v = 0; v < (is_copy ? 7 : 6); ++v) {
      const bool vec4 = v > 0, restrict_qualified = v < 6;
      const std::size_t per = std::array<std::size_t, 7>{1, 1, 2, 4, 8, 0, 4}[v];
      const std::size_t elements = vec4 ? n / 4 : n;
      const std::size_t invocations =
          per == 0 ? std::min(elements, grid_invocations) : (elements + per - 1) / per;
      ComputeKernel kernel = elementwise(ctx, op, vec4, per, restrict_qualified, local);
      Args args{{"x", x}, {"y", y}, {"n", static_cast<std::uint32_t>(elements)}};
      if (!is_copy) args.emplace_back("alpha", alpha);
      const Timing t = env.profile([&] { kernel.run(args, invocations); });
      // Check one fresh run: every 97th element.
      queue.copy(y_init, y).wait();
      kernel.run(args, invocations);
      y.download(std::span<float>(result));
      for (std::size_t i = 0; i < n; i += 97) {
        const float expect = is_copy ? xs[i] : alpha * xs[i] + (saxpy ? 1.0f : 0.0f);
        if (std::abs(result[i] - expect) > 1e-6f * (1.0f + std::abs(expect))) {
          throw Error(fmt::format("bench bandwidth: {} gave y[{}] = {}, expected {}", op.name, i,
                                  result[i], expect));
        }
      }
      const double g = gbps(op.bytes * static_cast<double>(n), t.kernel_ms());
      table.add({op.name, vec4 ? "vec4" : "float",
                 (per == 0 ? fmt::format("grid-stride ({} invocations)", invocations)
                           : fmt::format("{} {}", per, vec4 ? "vec4" : "float")) +
                     (restrict_qualified ? "" : ", no restrict"),
                 Cell(t.kernel_ms(), 3), Cell(g), ratio(g, gl_copy), ratio(g, cuda_copy)});
    }
  }
  table.note("storage blocks are declared restrict unless the row says otherwise");
  table.note(
      "GB/s counts every byte read and written once (copy and scale 8 bytes a float, "
      "SAXPY 12); device copies count read + write as well");
  table.note("CUDA reference: " + env.cuda.status);
  env.finish(table);
}

void run_transpose_bench(MemoryEnv& env) {
  auto& ctx = env.context;
  const std::size_t n = env.o.transpose_n;
  Table table("transpose", "matrix transpose (float32); GB/s counts the read and the write",
              {"matrix", "method", "median ms", "GB/s", "vs GL copy", "vs naive"});
  const std::size_t shapes[][2] = {{n, n}, {n, n / 4}, {n / 4, n}, {n - 1, n + 1}};
  for (const auto& s : shapes) {
    const std::size_t rows = s[0], cols = s[1], count = rows * cols;
    env.log << fmt::format("transpose: {} x {} ...\n", rows, cols);
    std::vector<float> host(count), result(count);
    for (std::size_t i = 0; i < count; ++i) host[i] = static_cast<float>(i % 100000);
    Buffer in = Buffer::from(ctx, host);
    Buffer out(ctx, ElementType::Float32, count);
    const double copy = env.gl_copy_gbps(in, out);
    const std::string shape = fmt::format("{} x {}", rows, cols);
    table.add({shape, "device copy (TransferQueue::copy)", Cell::missing(), Cell(copy),
               ratio(1.0, 1.0), Cell::missing()});
    double naive = 0;
    for (const auto method :
         {TransposeMethod::Naive, TransposeMethod::Tiled, TransposeMethod::TiledPadded}) {
      const Timing t = env.profile([&] { transpose(ctx, in, out, rows, cols, method); });
      out.download(std::span<float>(result));
      for (std::size_t i = 0; i < count; i += 101) {
        if (result[i] != host[i % rows * cols + i / rows]) {  // result is cols x rows
          throw Error(fmt::format("bench transpose: {} is wrong at {}", to_string(method), i));
        }
      }
      const double g = gbps(2.0 * 4.0 * static_cast<double>(count), t.kernel_ms());
      if (method == TransposeMethod::Naive) naive = g;
      table.add({shape, to_string(method), Cell(t.kernel_ms(), 3), Cell(g), ratio(g, copy),
                 ratio(g, naive)});
    }
  }
  table.note(
      "naive: coalesced reads, strided writes; tiled: 32 x 32 tiles in shared memory, "
      "32 x 8 invocations a group; padded: tile rows 33 wide against bank conflicts");
  env.finish(table);
}

void run_soa_bench(MemoryEnv& env) {
  auto& ctx = env.context;
  const std::size_t n = env.o.particles;
  env.log << fmt::format("soa: {} particles ...\n", n);
  std::mt19937 rng(12345);
  const Particles host = random_particles(n, rng);
  const ParticleParams params;
  Particles expected = host;
  cpu_step(expected, params);
  const int local = preferred_work_group_size(ctx);

  Table table("soa",
              fmt::format("particle update, {} particles, work group {}; GB/s of the bytes "
                          "the update needs (step 56, drift 36 a particle)",
                          n, local),
              {"kernel", "layout", "bytes/particle", "median ms", "GB/s", "vs AoS"});
  double aos[2] = {0, 0};  // step, drift
  for (const auto layout : {ParticleLayout::AoS, ParticleLayout::SoA, ParticleLayout::SoAVec4}) {
    try {
      // A step on the device must agree with the CPU before its time means anything.
      DeviceParticles trial(ctx, layout, host, local);
      trial.step(params);
      const Particles got = trial.download();
      for (std::size_t i = 0; i < n; i += 61) {
        for (const auto& [d, c] : {std::pair{&got.px, &expected.px}, {&got.vy, &expected.vy}}) {
          if (std::abs((*d)[i] - (*c)[i]) > 1e-4f * (1.0f + std::abs((*c)[i]))) {
            throw Error(fmt::format("bench soa: {} differs from the CPU at particle {}: {} vs {}",
                                    to_string(layout), i, (*d)[i], (*c)[i]));
          }
        }
      }
    } catch (const DeviceLimitError& e) {
      // A device (or profile) with fewer storage buffers than the layout binds: the table
      // says which limit, and the other layouts are still measured.
      table.add({"step and drift", to_string(layout), "-", "refused", e.limit(), "-"});
      continue;
    }
    DeviceParticles device(ctx, layout, host, local);
    const Timing times[2] = {env.profile([&] { device.step(params); }),
                             env.profile([&] { device.drift(params); })};
    for (const int k : {0, 1}) {
      const double bytes =
          static_cast<double>(n * (k == 0 ? step_useful_bytes : drift_useful_bytes));
      const double g = gbps(bytes, times[k].kernel_ms());
      if (layout == ParticleLayout::AoS) aos[k] = g;
      table.add({k == 0 ? "step (forces)" : "drift (pos += vel dt)", to_string(layout),
                 device.bytes_per_particle(), Cell(times[k].kernel_ms(), 3), Cell(g),
                 ratio(g, aos[k])});
    }
  }
  table.note(
      "AoS carries a vec4 colour the update never touches; it still shares the cache "
      "lines, so AoS moves more bytes for the same work");
  env.finish(table);
}

void run_workgroup_bench(MemoryEnv& env) {
  auto& ctx = env.context;
  const std::size_t n = env.o.bandwidth_floats;
  const std::size_t t = env.o.transpose_n;
  env.log << fmt::format("workgroup: SAXPY over {} floats, transpose {} x {} ...\n", n, t, t);
  Buffer x = Buffer::from(ctx, std::vector<float>(n, 0.5f));
  Buffer y = Buffer::from(ctx, std::vector<float>(n, 1.0f));
  Buffer in = Buffer::from(ctx, std::vector<float>(t * t, 2.0f));
  Buffer out(ctx, ElementType::Float32, t * t);

  Table table("workgroup",
              fmt::format("work-group sizes: vec4 SAXPY over {} floats, 32 x k tiled "
                          "transpose (padded) of {} x {}",
                          n, t, t),
              {"kernel", "work group", "median ms", "GB/s", "vs best"});
  // One kernel's rows, its milliseconds per work group, against its best.
  const auto add = [&](const char* kernel, const std::vector<std::pair<std::string, double>>& ms,
                       double bytes) {
    double best = 0;
    for (const auto& [group, m] : ms) best = std::max(best, gbps(bytes, m));
    for (const auto& [group, m] : ms)
      table.add({kernel, group, Cell(m, 3), Cell(gbps(bytes, m)), ratio(gbps(bytes, m), best)});
  };
  std::vector<std::pair<std::string, double>> saxpy_ms, transpose_ms;
  for (const int size : work_group_size_candidates(ctx.info())) {
    // SAXPY, a vec4 an invocation, storage blocks not declared restrict.
    ComputeKernel kernel = elementwise(ctx, ops[2], true, 1, false, size);
    const Args args{{"x", x}, {"y", y}, {"alpha", 0.25f}, {"n", static_cast<std::uint32_t>(n / 4)}};
    saxpy_ms.emplace_back(std::to_string(size),
                          env.profile([&] { kernel.run(args, n / 4); }).kernel_ms());
  }
  for (const int rows : {1, 2, 4, 8, 16, 32}) {
    if (32 * rows > ctx.info().max_compute_work_group_invocations) break;
    ComputeKernel kernel(
        ctx, transpose_kernel_source(TransposeMethod::TiledPadded, ElementType::Float32, 32, rows),
        {}, "bench transpose");
    const auto side = static_cast<std::uint32_t>(t);
    const Args args{{"src", in}, {"dst", out}, {"rows", side}, {"cols", side}};
    const Size3 groups{(t + 31) / 32, (t + 31) / 32, 1};
    transpose_ms.emplace_back(fmt::format("32 x {} = {}", rows, 32 * rows),
                              env.profile([&] { kernel.run_groups(args, groups); }).kernel_ms());
  }
  add("SAXPY vec4", saxpy_ms, 12.0 * static_cast<double>(n));
  add("transpose tiled-padded", transpose_ms, 8.0 * static_cast<double>(t * t));
  const auto choice = choose_work_group_size(ctx, {.use_cache = false});
  table.note(fmt::format("gpgpu::preferred_work_group_size on this device: {} ({})", choice.size,
                         choice.reason));
  env.finish(table);
}

}  // namespace

int run_memory_bench(const MemoryBenchOptions& options, Context& context) {
  const std::pair<const char*, void (*)(MemoryEnv&)> benches[] = {
      {"transfer", run_transfer_bench},
      {"bandwidth", run_bandwidth_bench},
      {"transpose", run_transpose_bench},
      {"soa", run_soa_bench},
      {"workgroup", run_workgroup_bench}};
  const auto chosen = [&](const auto& bench) {
    return options.which == "all" || options.which == bench.first;
  };
  if (std::none_of(std::begin(benches), std::end(benches), chosen)) {
    throw ArgumentError(fmt::format(
        "bench memory: unknown benchmark '{}'; choose transfer, bandwidth, transpose, soa, "
        "workgroup or all",
        options.which));
  }
  MemoryEnv env(context, options);
  env.log << fmt::format(
      "gpgpu memory benchmarks on {} ({}), {}\n"
      "medians of {} runs after {} warm-up runs; CUDA reference: {}\n",
      env.device, context.info().version, env.date, env.o.repeats, env.o.warmup, env.cuda.status);
  for (const auto& bench : benches) {
    if (chosen(bench)) bench.second(env);
  }
  if (!env.o.out_dir.empty()) env.log << "\nresults written to " << env.o.out_dir.string() << "\n";
  return 0;
}

}  // namespace gpgpu::bench
