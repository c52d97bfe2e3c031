// gpgpu/mpi/halo_exchange.hpp — swapping the halo items of a partitioned Buffer with the
// neighbouring ranks, over index lists.
//
//   std::vector<gpgpu::mpi::HaloLink> links = {{.rank = 1, .send = {3, 7}, .receive = {10, 11}}};
//   gpgpu::mpi::HaloExchange halo(world, ctx, gpgpu::ElementType::Float32, 4, 12, links);
//   halo.exchange(state);      // items 3 and 7 to rank 1; rank 1's two items into 10 and 11
//   halo.start(state);         // or split: pack and send ...
//   kernel.run(...);           //   ... work that needs no halo runs meanwhile ...
//   halo.finish(state);        //   ... then receive and place
//
// A Buffer holds `items` items of `width` elements each (a vec4 per cell: width 4). Each
// link names a neighbouring rank, the items this rank sends it (in the order it expects)
// and where the items it sends go (in the order it sends them).
//
// How. start(): a compute kernel packs the send items of all links into the host copy MPI
// sends from (a HostBuffer: pinned memory the kernel writes over the bus) and the receives
// are posted; finish(): the GPU work queued since start() is submitted (the pack's fence wait
// flushes, so that it runs while this thread waits), and once the pack has finished, the
// sends start (persistent MPI_Send_init / MPI_Recv_init requests, set up once), all requests
// are waited for, and a kernel reading the host copy MPI received into puts the items in
// place: as one run when the receive lists of all links together fill one contiguous range
// of items (in any order: each link's receive is an MPI indexed datatype that puts its items
// where they go in the host copy), else through their index list. The exchange runs on a
// duplicate of the communicator, so its messages never meet another exchange's or a
// collective's.
//
// Checks. The constructor is collective and checks every rank's links together (ranks in
// range and not itself, no rank twice, indices below `items`, no item received twice, and
// each side's send count equal to the other side's receive count): one CollectiveError on
// every rank when any is wrong. start() and finish() only talk to the neighbours, so a bad
// Buffer there (another type, length or Context) throws on that rank alone: under
// run_or_abort (communicator.hpp) the job then ends instead of the neighbours waiting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/element_type.hpp"
#include "gpgpu/mpi/communicator.hpp"

namespace gpgpu::mpi {

// What one rank exchanges with one neighbouring rank.
struct HaloLink {
  int rank = -1;                       // the other rank
  std::vector<std::uint32_t> send;     // our items it needs, in the order it expects them
  std::vector<std::uint32_t> receive;  // where its items go, in the order it sends them
};

// Exchanges the halo items of a Buffer with the neighbouring ranks over MPI, through host
// memory, with persistent requests (the manual at the top of this header). Move-only.
class HaloExchange {
 public:
  // Collective (see Checks). Buffers exchanged later must hold `items` * `width` elements
  // of `type` and belong to `context`.
  HaloExchange(const Communicator& comm, const Context& context, ElementType type,
               std::size_t width, std::size_t items, std::vector<HaloLink> links);
  ~HaloExchange();
  // @{
  // Moves the exchange; a moved-from HaloExchange must not be used.
  HaloExchange(HaloExchange&&) noexcept;
  HaloExchange& operator=(HaloExchange&&) noexcept;
  // @}
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  void exchange(Buffer& values);     // start(values) then finish(values)
  void start(const Buffer& values);  // pack into host memory, post the receives
  void finish(Buffer& values);       // send, wait, place the received items

  std::size_t bytes_sent() const noexcept;  // per exchange, all links
  std::size_t bytes_received() const noexcept;  // per exchange, all links
  std::size_t links() const noexcept;           // neighbouring ranks
  bool contiguous_receive() const noexcept;  // received items land as one run

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpgpu::mpi
