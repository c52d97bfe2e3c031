// gpgpu-mpi-rates — what moving data between two ranks costs, piece by piece, for the
// scaling model (scripts/scale-model.py --rates): measured apart from the applications, so
// that the model's predictions of the 2-GPU runs are checks, not fits.
//
//   mpirun -np 2 gpgpu-mpi-rates --json rates.json        (one GPU per rank, as gpgpu-mpi)
//
// For each size, the median over repetitions (after a warm-up), ranks in step (a barrier
// before each repetition), of: host MPI (sendrecv, allreduce, iallreduce + wait), and
// gpgpu's data path, each followed by Context::finish: a HaloExchange of `bytes` each way
// (pack kernel, download, MPI, upload), mpi::allreduce on a Buffer (download, MPI, upload),
// Buffer download and upload (both ranks at once, each on its GPU), and the mapped variants
// (one GPU copy each way) that the halo exchange and the gradient buckets use.
#include <iostream>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include <mpi.h>
#include <nlohmann/json.hpp>

#include "gpgpu/host_buffer.hpp"
#include "gpgpu/mpi/collectives.hpp"
#include "gpgpu/mpi/communicator.hpp"
#include "gpgpu/mpi/device.hpp"
#include "gpgpu/mpi/halo_exchange.hpp"
#include "gpgpu/transfer_queue.hpp"
#include "harness.hpp"

namespace {

namespace bench = gpgpu::bench;

// The rows of one size: add() times `body` over the repetitions, ranks in step, and keeps the
// median of the slowest rank's seconds of each (the same on every rank): as a JSON entry
// {what, bytes, seconds} (scripts/scale-model.py reads them) and a table row.
struct Rows {
  const gpgpu::mpi::Communicator& comm;
  std::size_t bytes;
  nlohmann::json& json;
  bench::Table& table;

  template <class Body>
  void add(const char* what, Body&& body) {
    const auto run = [&] {
      MPI_Barrier(comm.get());
      const auto start = bench::Clock::now();
      body();
      double ms = bench::ms_since(start);
      MPI_Allreduce(MPI_IN_PLACE, &ms, 1, MPI_DOUBLE, MPI_MAX, comm.get());
      return ms;
    };
    const double ms = bench::median(bench::sample({.warmup = 3, .repeats = 25}, run));
    json.push_back({{"what", what}, {"bytes", bytes}, {"seconds", ms / 1e3}});
    table.add({what, bench::Cell(bytes), bench::Cell(ms, 4),
               bench::Cell(bench::gbps(static_cast<double>(bytes), ms))});
  }
};

// MPI_Sendrecv of n floats both ways at once, `out` to the peer's `in`.
void sendrecv(Rows& rows, const char* what, const void* out, void* in, int n, int tag) {
  const int peer = 1 - rows.comm.rank();
  rows.add(what, [&] {
    MPI_Sendrecv(out, n, MPI_FLOAT, peer, tag, in, n, MPI_FLOAT, peer, tag, rows.comm.get(),
                 MPI_STATUS_IGNORE);
  });
}

void host_rows(Rows& rows) {
  const int n = static_cast<int>(rows.bytes / sizeof(float));
  std::vector<float> a(static_cast<std::size_t>(n), 1.0f), b(a.size());
  MPI_Comm comm = rows.comm.get();
  sendrecv(rows, "sendrecv", a.data(), b.data(), n, 7);  // a halo's MPI part
  rows.add("allreduce", [&] { MPI_Allreduce(a.data(), b.data(), n, MPI_FLOAT, MPI_SUM, comm); });
  rows.add("iallreduce", [&] {  // what a gradient bucket and an allreduce on a Buffer use
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Iallreduce(a.data(), b.data(), n, MPI_FLOAT, MPI_SUM, comm, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  });
}

void device_rows(Rows& rows, const gpgpu::Context& ctx) {
  const auto& comm = rows.comm;
  // Items of 4 floats (an earth cell's state): the first `count` are sent, the next `count`
  // receive the peer's.
  const std::size_t count = rows.bytes / 16;
  std::vector<std::uint32_t> send(count), receive(count);
  std::iota(send.begin(), send.end(), 0u);
  std::iota(receive.begin(), receive.end(), static_cast<std::uint32_t>(count));
  gpgpu::mpi::HaloExchange halo(comm, ctx, gpgpu::ElementType::Float32, 4, 2 * count,
                                {{.rank = 1 - comm.rank(), .send = send, .receive = receive}});
  gpgpu::Buffer state(ctx, gpgpu::ElementType::Float32, 8 * count);
  state.upload(std::vector<float>(8 * count, 1.0f));
  rows.add("halo", [&] {
    halo.exchange(state);
    ctx.finish();
  });
  gpgpu::Buffer grads(ctx, gpgpu::ElementType::Float32, rows.bytes / sizeof(float));
  grads.upload(std::vector<float>(grads.size(), 1.0f));
  // MPI between mapped HostBuffers, as the halo exchange sends (from read-back memory into
  // upload memory): whether MPI's shared-memory copy reaches the driver's pinned pages as it
  // reaches ordinary memory (sendrecv).
  gpgpu::HostBuffer out(ctx, gpgpu::ElementType::Float32, grads.size(), gpgpu::HostAccess::Read);
  gpgpu::HostBuffer in(ctx, gpgpu::ElementType::Float32, grads.size(), gpgpu::HostAccess::Write);
  sendrecv(rows, "mapped_sendrecv", out.data(), in.data(), static_cast<int>(grads.size()), 8);
  rows.add("buffer_allreduce", [&] {
    gpgpu::mpi::allreduce(comm, grads, gpgpu::mpi::Reduction::Sum);
    ctx.finish();
  });
  // The same with the Buffer's Context named: staging in the Context's mapped memory.
  rows.add("buffer_allreduce_mapped", [&] {
    gpgpu::mpi::allreduce(comm, grads, gpgpu::mpi::Reduction::Sum, {.context = &ctx});
    ctx.finish();
  });
  std::vector<float> host(grads.size());
  rows.add("download", [&] { grads.download(std::span<float>(host)); });
  rows.add("upload", [&] {
    grads.upload(std::span<const float>(host));
    ctx.finish();
  });
  // The same through a mapped HostBuffer and a TransferQueue: one GPU copy each way (what
  // the training's gradient buckets use).
  gpgpu::HostBuffer mapped(ctx, gpgpu::ElementType::Float32, grads.size(),
                           gpgpu::HostAccess::ReadWrite);
  gpgpu::TransferQueue queue(ctx);
  rows.add("mapped_download", [&] { queue.copy(grads, mapped).wait(); });
  rows.add("mapped_upload", [&] {
    queue.copy(mapped, grads).wait();
    ctx.finish();
  });
}

}  // namespace

int main(int argc, char** argv) {
  gpgpu::mpi::Session session(argc, argv);
  gpgpu::mpi::Communicator world;
  std::string json;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--json") json = argv[i + 1];
  }
  return gpgpu::mpi::run_or_abort(
      world,
      [&] {
        if (world.size() != 2) throw gpgpu::Error("gpgpu-mpi-rates runs on exactly 2 ranks");
        const gpgpu::Context ctx = gpgpu::mpi::make_context(world);
        auto rates = nlohmann::json::array();
        bench::Table table({"what", "bytes", "ms", "GB/s"});
        for (std::size_t kib = 4; kib <= 16384; kib *= 4) {
          Rows size{world, kib * 1024, rates, table};
          host_rows(size);
          device_rows(size, ctx);
        }
        if (world.rank() != 0) return 0;
        if (!json.empty()) bench::write_file(json, rates.dump(2) + "\n");
        table.print(std::cout, true);
        return 0;
      },
      "gpgpu-mpi-rates");
}
