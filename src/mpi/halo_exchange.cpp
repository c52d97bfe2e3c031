// HaloExchange: a kernel packs the send items into host memory, persistent point-to-point
// messages, a kernel places or scatters the received items (see gpgpu/mpi/halo_exchange.hpp).
//
// The host copies are HostBuffers (persistently mapped where the device has
// GL_EXT_buffer_storage), and the kernels reach them over the bus themselves: the pack
// kernel writes the send items into the host copy MPI sends from, and the place or scatter
// kernel reads the received items from the host copy MPI receives into: no device copy of
// either side, no GPU copy between them. Measured on two H200s against a GPU copy each way
// in the same queue (the copy up of level 8's 1.4 MB halo takes 154 us): runs that swap
// before every stage are 2-5% faster, runs that swap every 8 steps (the default) the same.
#include "gpgpu/mpi/halo_exchange.hpp"

#include <algorithm>
#include <climits>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/host_buffer.hpp"
#include "gpgpu/pending_run.hpp"
#include "mpi/agreement.hpp"

namespace gpgpu::mpi {

namespace {

// How items move between a Buffer and a host copy: gathered by an index list (pack), put
// back by one (scatter), or put back as one run of items from `first` on (place).
enum class Move { Pack, Scatter, Place };

// dst[i] = src[index[i / width] * width + i % width] (pack), the reverse (scatter), or
// dst[first * width + i] = src[i] (place).
std::string move_kernel_source(ElementType type, Move move) {
  const bool indexed = move != Move::Place;
  return fmt::format(
      R"(
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer Src {{ {0} src[]; }};
layout(std430, binding = 2) writeonly buffer Dst {{ {0} dst[]; }};
{1}
uniform uint width;
void main() {{
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  {2}
  {3}
}}
)",
      glsl_scalar_name(type),
      indexed ? "layout(std430, binding = 1) readonly buffer Index { uint index[]; };"
              : "uniform uint first;",
      indexed ? "uint item = i / width; uint at = index[item] * width + (i - item * width);"
              : "uint at = first * width + i;",
      move == Move::Pack ? "dst[i] = src[at];" : "dst[at] = src[i];");
}

// This rank's own mistakes in its links, "" when there are none.
std::string link_error(const Communicator& comm, std::size_t items,
                       const std::vector<HaloLink>& links) {
  std::set<int> ranks;
  std::set<std::uint32_t> received;
  for (const HaloLink& l : links) {
    if (l.rank < 0 || l.rank >= comm.size() || l.rank == comm.rank())
      return fmt::format("link to rank {}: not another rank of {}", l.rank, comm.size());
    if (!ranks.insert(l.rank).second) return fmt::format("rank {} is linked twice", l.rank);
    for (const auto* list : {&l.send, &l.receive}) {
      for (std::uint32_t i : *list) {
        if (i >= items)
          return fmt::format("link to rank {}: item {} is past the {} items", l.rank, i, items);
      }
    }
    for (std::uint32_t i : l.receive) {
      if (!received.insert(i).second) return fmt::format("item {} is received twice", i);
    }
  }
  return "";
}

// Collective: each side's send count must equal the other side's receive count.
std::string count_error(const Communicator& comm, const std::vector<HaloLink>& links) {
  const auto n = static_cast<std::size_t>(comm.size());
  std::vector<long long> sends(n, 0), expected(n, 0);
  for (const HaloLink& l : links) sends[l.rank] = static_cast<long long>(l.send.size());
  MPI_Alltoall(sends.data(), 1, MPI_LONG_LONG, expected.data(), 1, MPI_LONG_LONG, comm.get());
  for (std::size_t r = 0; r < n; ++r) {
    long long receive = 0;
    for (const HaloLink& l : links) {
      if (l.rank == static_cast<int>(r)) receive = static_cast<long long>(l.receive.size());
    }
    if (expected[r] != receive) {
      return fmt::format("rank {} sends {} items, and this rank expects {} from it", r, expected[r],
                         receive);
    }
  }
  return "";
}

}  // namespace

struct HaloExchange::Impl {
  const Context* context = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate: our messages meet no one else's
  ElementType type = ElementType::Float32;
  std::size_t width = 1, items = 0, send_items = 0, receive_items = 0;
  std::size_t receive_first = 0;  // where a contiguous receive starts
  bool contiguous = false;
  std::vector<HaloLink> links;
  ComputeKernel pack;
  std::optional<ComputeKernel> put;  // place (contiguous receives) or scatter, as plan() finds
  Buffer send_index, receive_index;
  HostBuffer send_host, receive_host;  // what MPI sends and receives
  std::vector<MPI_Request> sends, receives;
  std::vector<MPI_Datatype> types;  // where each link's items land (contiguous receives)
  PendingRun packed;                // the send items written into send_host
  PendingRun placed;  // receive_host read onto the device: done before MPI writes it again
  bool started = false;

  Impl(const Context& ctx, ElementType t)
      : context(&ctx), type(t), pack(ctx, move_kernel_source(t, Move::Pack), {}, "halo pack") {}

  ~Impl() {
    for (auto* list : {&sends, &receives}) {
      for (MPI_Request& r : *list) MPI_Request_free(&r);
    }
    for (MPI_Datatype& t : types) MPI_Type_free(&t);
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }

  void plan() {
    std::vector<std::uint32_t> send, receive;
    for (const HaloLink& l : links) {
      send.insert(send.end(), l.send.begin(), l.send.end());
      receive.insert(receive.end(), l.receive.begin(), l.receive.end());
    }
    send_items = send.size();
    receive_items = receive.size();
    // Received items are distinct (checked): they fill one range when its ends are that far
    // apart.
    const auto [lo, hi] = std::minmax_element(receive.begin(), receive.end());
    contiguous = receive.empty() || *hi - *lo + 1 == receive.size();
    receive_first = receive.empty() ? 0 : *lo;
    if (!send.empty()) send_index = Buffer::from(*context, send);
    if (!contiguous) receive_index = Buffer::from(*context, receive);
    if (send_items > 0) {
      send_host = HostBuffer(*context, type, send_items * width, HostAccess::Read);
    }
    if (receive_items > 0) {
      receive_host = HostBuffer(*context, type, receive_items * width, HostAccess::Write);
      const Move move = contiguous ? Move::Place : Move::Scatter;
      put.emplace(*context, move_kernel_source(type, move), Defines{},
                  contiguous ? "halo place" : "halo scatter");
    }
  }

  // Where a link's items land in the contiguous host copy: one block per run of consecutive
  // items (a partition's halo from one rank is a run of ring 1 and a run of ring 2).
  MPI_Datatype placement(const HaloLink& l) {
    std::vector<int> lengths, offsets;
    for (std::size_t i = 0; i < l.receive.size(); ++i) {
      const auto bytes = static_cast<long long>(width) * 4;
      if (i > 0 && l.receive[i] == l.receive[i - 1] + 1) {
        lengths.back() += static_cast<int>(bytes);
        continue;
      }
      const long long at = (static_cast<long long>(l.receive[i]) - receive_first) * bytes;
      if (at > INT_MAX) throw LimitError("halo exchange: a halo of 2 GB");
      offsets.push_back(static_cast<int>(at));
      lengths.push_back(static_cast<int>(bytes));
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Type_indexed(static_cast<int>(lengths.size()), lengths.data(), offsets.data(), MPI_BYTE,
                     &t);
    MPI_Type_commit(&t);
    types.push_back(t);
    return t;
  }

  // Persistent requests, one send and one receive per link, on the host copies.
  void make_requests() {
    auto* const send_words = static_cast<std::uint32_t*>(send_host.data());
    auto* const receive_words = static_cast<std::uint32_t*>(receive_host.data());
    std::size_t s = 0, r = 0;
    for (const HaloLink& l : links) {
      const std::size_t sn = l.send.size() * width, rn = l.receive.size() * width;
      if (sn * 4 > INT_MAX || rn * 4 > INT_MAX) throw LimitError("halo exchange: a link of 2 GB");
      sends.emplace_back();
      MPI_Send_init(send_words + s, static_cast<int>(4 * sn), MPI_BYTE, l.rank, 0, comm,
                    &sends.back());
      receives.emplace_back();
      if (contiguous) {
        MPI_Recv_init(receive_words, 1, placement(l), l.rank, 0, comm, &receives.back());
      } else {
        MPI_Recv_init(receive_words + r, static_cast<int>(4 * rn), MPI_BYTE, l.rank, 0, comm,
                      &receives.back());
      }
      s += sn;
      r += rn;
    }
  }

  void check(const Buffer& values) const {
    if (!values.belongs_to(*context) || values.element_type() != type ||
        values.size() != items * width) {
      throw ArgumentError(fmt::format(
          "halo exchange: needs a {} Buffer of {} elements ({} items of {}) from its Context; "
          "got {} {} elements{}",
          to_string(type), items * width, items, width, values.size(),
          to_string(values.element_type()),
          values.belongs_to(*context) ? "" : " from another Context"));
    }
  }
};

HaloExchange::HaloExchange(const Communicator& comm, const Context& context, ElementType type,
                           std::size_t width, std::size_t items, std::vector<HaloLink> links) {
  std::string error = width == 0 ? "width must be at least 1" : link_error(comm, items, links);
  detail::agree_on(
      comm, "gpgpu::mpi::HaloExchange",
      {{"element type", static_cast<long long>(type)}, {"width", static_cast<long long>(width)}},
      error);
  comm.agree(count_error(comm, links));
  std::sort(links.begin(), links.end(),
            [](const HaloLink& a, const HaloLink& b) { return a.rank < b.rank; });
  impl_ = std::make_unique<Impl>(context, type);
  impl_->width = width;
  impl_->items = items;
  impl_->links = std::move(links);
  MPI_Comm_dup(comm.get(), &impl_->comm);
  impl_->plan();
  impl_->make_requests();
}

HaloExchange::~HaloExchange() = default;
HaloExchange::HaloExchange(HaloExchange&&) noexcept = default;
HaloExchange& HaloExchange::operator=(HaloExchange&&) noexcept = default;

void HaloExchange::exchange(Buffer& values) {
  start(values);
  finish(values);
}

void HaloExchange::start(const Buffer& values) {
  Impl& m = *impl_;
  m.check(values);
  if (m.started) throw Error("halo exchange: start() twice without finish()");
  if (m.send_items > 0) {
    m.packed = m.pack.run_async({{"src", values},
                                 {"index", m.send_index},
                                 {"dst", m.send_host},
                                 {"width", static_cast<std::uint32_t>(m.width)}},
                                m.send_items * m.width);
  }
  // The last exchange's received halo must have left receive_host before MPI refills it.
  if (!m.placed.empty() && !m.placed.waited()) m.placed.wait();
  if (!m.receives.empty()) MPI_Startall(static_cast<int>(m.receives.size()), m.receives.data());
  m.started = true;
}

void HaloExchange::finish(Buffer& values) {
  Impl& m = *impl_;
  m.check(values);
  if (!m.started) throw Error("halo exchange: finish() without start()");
  m.started = false;
  // The work queued since start() must be submitted before this thread blocks in MPI, or
  // the GPU idles through the exchange: the pack's fence wait submits it (GlFence::wait); a
  // rank that sends nothing flushes instead.
  if (m.send_items > 0) {
    m.packed.wait();
  } else {
    m.context->flush();
  }
  if (!m.sends.empty()) MPI_Startall(static_cast<int>(m.sends.size()), m.sends.data());
  MPI_Waitall(static_cast<int>(m.receives.size()), m.receives.data(), MPI_STATUSES_IGNORE);
  MPI_Waitall(static_cast<int>(m.sends.size()), m.sends.data(), MPI_STATUSES_IGNORE);
  if (m.receive_items == 0) return;
  // Later commands on `values` follow the kernel in the GPU's queue; only the host side waits
  // for it, in the next start().
  const HostBuffer& received = m.receive_host;
  Args args{{"src", received}, {"dst", values}, {"width", static_cast<std::uint32_t>(m.width)}};
  if (m.contiguous) {
    args.emplace_back("first", static_cast<std::uint32_t>(m.receive_first));
  } else {
    args.emplace_back("index", m.receive_index);
  }
  m.placed = m.put->run_async(args, m.receive_items * m.width);
}

std::size_t HaloExchange::bytes_sent() const noexcept {
  return impl_->send_items * impl_->width * 4;
}
std::size_t HaloExchange::bytes_received() const noexcept {
  return impl_->receive_items * impl_->width * 4;
}
std::size_t HaloExchange::links() const noexcept {
  return impl_->links.size();
}
bool HaloExchange::contiguous_receive() const noexcept {
  return impl_->contiguous;
}

}  // namespace gpgpu::mpi
