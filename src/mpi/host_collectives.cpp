// Collectives on host arrays (see gpgpu/mpi/collectives.hpp).
#include <climits>
#include <cstdint>

#include <fmt/format.h>

#include "gpgpu/mpi/collectives.hpp"
#include "mpi/agreement.hpp"

namespace gpgpu::mpi {

namespace {

// MPI counts are ints: large broadcasts go in pieces of at most this many bytes.
constexpr std::size_t max_piece = std::size_t{1} << 30;

template <class T>
MPI_Datatype host_type() {
  if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  if constexpr (std::is_same_v<T, std::int32_t>) return MPI_INT32_T;
  if constexpr (std::is_same_v<T, std::uint32_t>) return MPI_UINT32_T;
  if constexpr (std::is_same_v<T, std::int64_t>) return MPI_INT64_T;
  if constexpr (std::is_same_v<T, std::uint64_t>) return MPI_UINT64_T;
}

MPI_Op mpi_op(Reduction op) {
  return op == Reduction::Min ? MPI_MIN : op == Reduction::Max ? MPI_MAX : MPI_SUM;
}

std::string root_error(const Communicator& comm, int root) {
  return root >= 0 && root < comm.size()
             ? ""
             : fmt::format("root {} is not a rank of {}", root, comm.size());
}

}  // namespace

template <class T>
void allreduce(const Communicator& comm, std::span<T> values, Reduction op) {
  const bool mean_of_ints = op == Reduction::Mean && !std::is_floating_point_v<T>;
  detail::agree_on(comm, "gpgpu::mpi::allreduce",
                   {{"element count", static_cast<long long>(values.size())},
                    {"reduction", static_cast<long long>(op)}},
                   mean_of_ints ? "Mean needs floating-point values" : "");
  if (values.size() > INT_MAX) throw LimitError("gpgpu::mpi::allreduce: more than 2^31 values");
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), host_type<T>(),
                mpi_op(op), comm.get());
  if constexpr (std::is_floating_point_v<T>) {
    if (op == Reduction::Mean) {
      for (T& v : values) v /= static_cast<T>(comm.size());
    }
  }
}

template void allreduce(const Communicator&, std::span<float>, Reduction);
template void allreduce(const Communicator&, std::span<double>, Reduction);
template void allreduce(const Communicator&, std::span<std::int32_t>, Reduction);
template void allreduce(const Communicator&, std::span<std::uint32_t>, Reduction);
template void allreduce(const Communicator&, std::span<std::int64_t>, Reduction);
template void allreduce(const Communicator&, std::span<std::uint64_t>, Reduction);

namespace detail {

void broadcast_bytes(const Communicator& comm, std::vector<std::byte>& bytes, int root) {
  detail::agree_on(comm, "gpgpu::mpi::broadcast", {{"root", root}}, root_error(comm, root));
  auto size = static_cast<unsigned long long>(bytes.size());
  MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, root, comm.get());
  bytes.resize(size);
  for (std::size_t at = 0; at < bytes.size(); at += max_piece) {
    const std::size_t piece = std::min(max_piece, bytes.size() - at);
    MPI_Bcast(bytes.data() + at, static_cast<int>(piece), MPI_BYTE, root, comm.get());
  }
}

std::vector<std::byte> gather_bytes(const Communicator& comm, std::span<const std::byte> part,
                                    int root) {
  detail::agree_on(comm, "gpgpu::mpi::gather", {{"root", root}},
                   !root_error(comm, root).empty() ? root_error(comm, root)
                   : part.size() > INT_MAX         ? "a part of 2^31 bytes or more"
                                                   : "");
  const int mine = static_cast<int>(part.size());
  std::vector<int> sizes(comm.rank() == root ? comm.size() : 0), offsets(sizes.size());
  MPI_Gather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, root, comm.get());
  long long total = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    offsets[r] = static_cast<int>(total);
    total += sizes[r];
  }
  // The total is root's own limit; others learn nothing of it, so root aborts past it.
  if (total > INT_MAX) comm.abort("gpgpu::mpi::gather: the parts add up to 2^31 bytes or more");
  std::vector<std::byte> all(static_cast<std::size_t>(total));
  MPI_Gatherv(part.data(), mine, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE, root,
              comm.get());
  return all;
}

}  // namespace detail

std::string broadcast(const Communicator& comm, const std::string& text, int root) {
  std::vector<char> chars(text.begin(), text.end());
  broadcast(comm, chars, root);
  return {chars.begin(), chars.end()};
}

std::vector<std::string> gather(const Communicator& comm, const std::string& text, int root) {
  // Each part: its length (8 bytes) then its characters.
  std::vector<char> part(8 + text.size());
  const std::uint64_t length = text.size();
  std::memcpy(part.data(), &length, 8);
  std::memcpy(part.data() + 8, text.data(), text.size());
  const auto all = gather(comm, std::span<const char>(part), root);
  std::vector<std::string> texts;
  for (std::size_t at = 0; at + 8 <= all.size();) {
    std::uint64_t n = 0;
    std::memcpy(&n, all.data() + at, 8);
    texts.emplace_back(all.data() + at + 8, n);
    at += 8 + n;
  }
  return texts;
}

}  // namespace gpgpu::mpi
