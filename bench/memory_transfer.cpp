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

std::vector<std::size_t> transfer_sizes(std::size_t max_bytes) {
  std::vector<std::size_t> sizes;
  for (std::size_t s = std::min(mib, max_bytes); s < max_bytes; s *= 16) sizes.push_back(s);
  sizes.push_back(max_bytes / 4 * 4);
  return sizes;
}

TransferOptions queue_options(TransferMethod method, std::size_t bytes, std::size_t threads = 1) {
  // Chunks of a quarter of the transfer, between 1 and 16 MiB, four in flight.
  return TransferOptions{method, std::clamp(bytes / 4, mib, 16 * mib), 4, threads};
}

// Host threads for the multi-threaded rows: up to 4, leaving the GL driver a core.
std::size_t copy_threads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return std::clamp<std::size_t>(cores > 1 ? cores - 1 : 1, 1, 4);
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

  const auto sequential = env.profile([&] {
    for (std::size_t c = 0; c < chunks; ++c) {
      x[0].upload(std::span<const float>(in.data() + c * n, n));
      scale.run({{"x", x[0]}, {"y", y[0]}}, n);
      y[0].download(std::span<float>(out.data() + c * n, n));
    }
  });
  check(out[n * chunks - 1] == 2.0f * in[n * chunks - 1], "sequential pipeline");
  std::fill(out.begin(), out.end(), -1.0f);
  TransferQueue queue(ctx, queue_options(TransferMethod::Auto, n * 4));
  const auto overlapped = env.profile([&] {
    std::vector<PendingTransfer> downloads;
    for (std::size_t c = 0; c < chunks; ++c) {
      queue.upload(x[c % 2], std::span<const float>(in.data() + c * n, n));
      scale.run({{"x", x[c % 2]}, {"y", y[c % 2]}}, n);
      downloads.push_back(queue.download(y[c % 2], std::span<float>(out.data() + c * n, n)));
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
  table.add({"sequential: Buffer::upload, run, Buffer::download", Cell(sequential.wall_ms, 3),
             Cell(gbps(moved, sequential.wall_ms)), ratio(1.0, 1.0)});
  table.add(
      {fmt::format("overlapped: TransferQueue ({}), 2 buffer pairs", to_string(queue.method())),
       Cell(overlapped.wall_ms, 3), Cell(gbps(moved, overlapped.wall_ms)),
       ratio(sequential.wall_ms, overlapped.wall_ms)});
  table.note("wall time (fenced): the whole pipeline as the caller waits for it");
  env.finish(table);
}

}  // namespace

void run_transfer_bench(MemoryEnv& env) {
  auto& ctx = env.context;
  const bool storage = ctx.info().has_buffer_storage();
  const std::size_t threads = copy_threads();
  Table table("transfer", "host <-> device transfers (fenced wall time)",
              {"direction", "method", "MiB", "median ms", "GB/s", "vs CUDA pinned"});
  for (const std::size_t bytes : transfer_sizes(env.o.transfer_max_bytes)) {
    const std::size_t n = bytes / 4;
    env.log << fmt::format("transfer: {:.2f} MiB ...\n", static_cast<double>(bytes) / mib);
    std::vector<float> host(n), back(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 65536);
    Buffer device(ctx, ElementType::Float32, n);
    const double cuda_up = env.cuda_pinned_gbps(bytes, true);
    const double cuda_down = env.cuda_pinned_gbps(bytes, false);
    const Cell size(static_cast<double>(bytes) / mib, bytes < mib ? 3 : 0);
    auto row = [&](const char* direction, std::string method, const Timing& t, double cuda) {
      const double g = gbps(static_cast<double>(bytes), t.wall_ms);
      table.add({direction, std::move(method), size, Cell(t.wall_ms, 3), Cell(g), ratio(g, cuda)});
    };

    std::vector<Buffer> made;  // freed after timing, so deletion is not timed
    row("upload", "glBufferData (a new Buffer::from)",
        env.profile([&] { made.push_back(Buffer::from(ctx, host)); }), cuda_up);
    made.clear();
    row("upload", "glBufferSubData (Buffer::upload)", env.profile([&] { device.upload(host); }),
        cuda_up);
    for (const bool up : {true, false}) {
      const char* direction = up ? "upload" : "download";
      const double cuda = up ? cuda_up : cuda_down;
      if (!up) {
        device.download(std::span<float>(back));
        check(back == host, "upload");
        std::fill(back.begin(), back.end(), -1.0f);
        row(direction, "glMapBufferRange read (Buffer::download)",
            env.profile([&] { device.download(std::span<float>(back)); }), cuda);
      }
      const auto queued = [&](std::string method, TransferMethod how, std::size_t host_threads) {
        TransferQueue q(ctx, queue_options(how, bytes, host_threads));
        row(direction, std::move(method),
            env.profile([&] { (up ? q.upload(device, host) : q.download(device, back)).wait(); }),
            cuda);
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
      row(direction, "persistently mapped HostBuffer (GPU copy only)",
          env.profile([&] { (up ? q.copy(pinned, device) : q.copy(device, pinned)).wait(); }),
          cuda);
      if (!up) {
        check(std::equal(host.begin(), host.end(), pinned.span<const float>().begin()),
              "HostBuffer download");
      }
    }
    check(back == host, "download");
    if (cuda_up > 0) {
      table.add({"upload", "CUDA pinned cudaMemcpy (reference)", size, Cell::missing(),
                 Cell(cuda_up), ratio(1.0, 1.0)});
      table.add({"download", "CUDA pinned cudaMemcpy (reference)", size, Cell::missing(),
                 Cell(cuda_down), ratio(1.0, 1.0)});
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
