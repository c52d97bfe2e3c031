// Collectives on Buffers, staged through the host: the pipelined allreduce, broadcast and
// gather (see gpgpu/mpi/collectives.hpp).
#include <algorithm>
#include <cstdint>
#include <exception>
#include <variant>

#include <fmt/format.h>

#include "gpgpu/context.hpp"
#include "gpgpu/mpi/collectives.hpp"
#include "mpi/agreement.hpp"
#include "mpi/mapped_staging.hpp"
#include "mpi/staging_pool.hpp"
#include "mpi/words.hpp"

namespace gpgpu::mpi {

namespace {

using detail::download_words;
using detail::StagingLease;
using detail::upload_words;
using detail::Word;

// A Buffer's own checks, "" when it may take part in a collective.
std::string buffer_error(const Buffer& b) {
  return b.valid() ? "" : "the Buffer is empty or released";
}

MPI_Op mpi_op(Reduction op) {
  return op == Reduction::Min ? MPI_MIN : op == Reduction::Max ? MPI_MAX : MPI_SUM;
}

// Where the chunks wait on the host: ordinary memory reached through the data path, or, when
// the caller names the Buffer's Context, mapped memory reached by one GPU copy each way
// (mapped_staging.hpp).
struct HostStaging {
  using Download = std::variant<PendingRun, PendingTransfer>;
  using Mapped = detail::MappedStaging::Lease;
  std::variant<StagingLease, Mapped> memory;

  Word* data() {
    return std::visit([](auto& m) { return m.data(); }, memory);
  }
  Download download(const Buffer& b, std::size_t first, std::size_t count) {
    if (auto* m = std::get_if<Mapped>(&memory)) return m->download(b, first, count);
    return download_words(b, std::span<Word>(data() + first, count), first);
  }
  void upload(Buffer& b, std::size_t first, std::size_t count) {
    if (auto* m = std::get_if<Mapped>(&memory)) return m->upload(b, first, count);
    upload_words(b, std::span<const Word>(data() + first, count), first);
  }
};

}  // namespace

// One chunk goes download -> MPI_Iallreduce -> upload; chunks start their reductions in
// order (every rank must issue its collectives in the same order) and finish in order.
struct PendingAllreduce::State {
  struct Chunk {
    std::size_t first = 0, count = 0;
    HostStaging::Download download;
    MPI_Request request = MPI_REQUEST_NULL;
    bool landed() const {
      return std::visit([](const auto& d) { return d.ready(); }, download);
    }
  };
  const Communicator* comm = nullptr;
  Buffer* buffer = nullptr;
  Reduction op = Reduction::Sum;
  HostStaging host;
  std::vector<Chunk> chunks;
  std::size_t started = 0, finished = 0;  // chunks whose reduction started, whose upload ran

  void start(Chunk& c) {
    std::visit([](auto& d) { d.wait(); }, c.download);
    MPI_Iallreduce(MPI_IN_PLACE, host.data() + c.first, static_cast<int>(c.count),
                   detail::datatype_of(buffer->element_type()), mpi_op(op), comm->get(),
                   &c.request);
    ++started;
  }
  void finish(Chunk& c) {
    if (op == Reduction::Mean) {
      const auto n = static_cast<float>(comm->size());
      auto* v = reinterpret_cast<float*>(host.data() + c.first);
      for (std::size_t i = 0; i < c.count; ++i) v[i] /= n;
    }
    host.upload(*buffer, c.first, c.count);
    ++finished;
  }
  bool test() {
    while (started < chunks.size() && chunks[started].landed()) start(chunks[started]);
    while (finished < started) {
      int complete = 0;
      MPI_Test(&chunks[finished].request, &complete, MPI_STATUS_IGNORE);
      if (complete == 0) break;
      finish(chunks[finished]);
    }
    return finished == chunks.size();
  }
  void wait() {
    while (started < chunks.size()) {
      start(chunks[started]);
      test();  // upload what has arrived while later chunks start
    }
    while (finished < chunks.size()) {
      MPI_Wait(&chunks[finished].request, MPI_STATUS_IGNORE);
      finish(chunks[finished]);
    }
  }
};

PendingAllreduce::PendingAllreduce() = default;
PendingAllreduce::PendingAllreduce(std::unique_ptr<State> state) : state_(std::move(state)) {}
PendingAllreduce::PendingAllreduce(PendingAllreduce&&) noexcept = default;
PendingAllreduce& PendingAllreduce::operator=(PendingAllreduce&& other) noexcept {
  if (this != &other) {
    if (state_ && !done()) state_->wait();
    state_ = std::move(other.state_);
  }
  return *this;
}

PendingAllreduce::~PendingAllreduce() {
  if (!state_ || done()) return;
  // MPI may still write into the host copy: while the job fails, leave it to the process.
  if (std::uncaught_exceptions() > 0) {
    (void)state_.release();
    return;
  }
  state_->wait();
}

bool PendingAllreduce::test() {
  return !state_ || state_->test();
}
void PendingAllreduce::wait() {
  if (state_) state_->wait();
}
bool PendingAllreduce::done() const noexcept {
  return !state_ || state_->finished == state_->chunks.size();
}

PendingAllreduce allreduce_async(const Communicator& comm, Buffer& buffer, Reduction op,
                                 const AllreduceOptions& options) {
  std::string error = buffer_error(buffer);
  if (error.empty() && op == Reduction::Mean && buffer.element_type() != ElementType::Float32)
    error = fmt::format("Mean needs a float32 Buffer; got {}", to_string(buffer.element_type()));
  if (options.chunk_elements < 1 || options.chunk_elements > (std::size_t{1} << 28))
    error = fmt::format("chunk_elements must be in 1..2^28; got {}", options.chunk_elements);
  if (error.empty() && options.context != nullptr && !buffer.belongs_to(*options.context))
    error = "the Buffer was not made from AllreduceOptions::context";
  detail::agree_on(comm, "gpgpu::mpi::allreduce",
                   {{"element type", static_cast<long long>(buffer.element_type())},
                    {"Buffer length", static_cast<long long>(buffer.size())},
                    {"reduction", static_cast<long long>(op)}},
                   error);
  auto state = std::make_unique<PendingAllreduce::State>();
  state->comm = &comm;
  state->buffer = &buffer;
  state->op = op;
  if (options.context != nullptr) {
    state->host.memory.emplace<HostStaging::Mapped>(
        detail::MappedStaging::of(*options.context).take(buffer.element_type(), buffer.size()));
  } else {
    state->host.memory.emplace<StagingLease>(buffer.size());
  }
  for (std::size_t first = 0; first < buffer.size(); first += options.chunk_elements) {
    auto& c = state->chunks.emplace_back();
    c.first = first;
    c.count = std::min(options.chunk_elements, buffer.size() - first);
    c.download = state->host.download(buffer, first, c.count);
  }
  return PendingAllreduce(std::move(state));
}

void allreduce(const Communicator& comm, Buffer& buffer, Reduction op,
               const AllreduceOptions& options) {
  allreduce_async(comm, buffer, op, options).wait();
}

void broadcast(const Communicator& comm, Buffer& buffer, int root) {
  std::string error = buffer_error(buffer);
  if (root < 0 || root >= comm.size())
    error = fmt::format("root {} is not a rank of {}", root, comm.size());
  detail::agree_on(comm, "gpgpu::mpi::broadcast",
                   {{"element type", static_cast<long long>(buffer.element_type())},
                    {"Buffer length", static_cast<long long>(buffer.size())},
                    {"root", root}},
                   error);
  std::vector<Word> host(buffer.size());
  if (comm.rank() == root) download_words(buffer, host, 0).wait();
  broadcast(comm, host, root);
  if (comm.rank() != root) upload_words(buffer, host, 0);
}

template <class T>
std::vector<T> gather(const Communicator& comm, const Buffer& buffer, int root) {
  std::string error = buffer_error(buffer);
  if (error.empty() && buffer.element_type() != element_type_of<T>()) {
    error = fmt::format("gather<{}> of a {} Buffer", to_string(element_type_of<T>()),
                        to_string(buffer.element_type()));
  }
  detail::agree_on(comm, "gpgpu::mpi::gather", {{"root", root}}, error);
  std::vector<T> part(buffer.size());
  buffer.download(std::span<T>(part));
  return gather(comm, std::span<const T>(part), root);
}

template std::vector<float> gather(const Communicator&, const Buffer&, int);
template std::vector<std::int32_t> gather(const Communicator&, const Buffer&, int);
template std::vector<std::uint32_t> gather(const Communicator&, const Buffer&, int);

}  // namespace gpgpu::mpi
