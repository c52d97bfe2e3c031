// transfer: host <-> device bandwidth by method, and chunked upload + compute + download.
#include <algorithm>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/host_buffer.hpp"
#include "gpgpu/transfer_queue.hpp"
#include "memory_runner.hpp"

namespace gpgpu::bench {

namespace {

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

}  // namespace

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

}  // namespace gpgpu::bench
