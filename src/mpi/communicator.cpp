// Session, Communicator, and ending a job that failed (see gpgpu/mpi/communicator.hpp).
#include "gpgpu/mpi/communicator.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

namespace gpgpu::mpi {

Session::Session(int& argc, char**& argv) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (initialised != 0) throw Error("gpgpu::mpi::Session: MPI is initialised already");
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw Error("gpgpu::mpi::Session: MPI_Init_thread failed");
}

Session::~Session() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (finalised == 0) MPI_Finalize();
}

Communicator::Communicator() : Communicator(MPI_COMM_WORLD) {}

Communicator::Communicator(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_size(node, &local_size_);
  MPI_Comm_free(&node);
}

std::string Communicator::first_message(const std::string& message) const {
  const int mine = message.empty() ? size_ : rank_;
  int first = size_;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm_);
  if (first == size_) return "";
  std::string text = rank_ == first ? message : std::string();
  auto length = static_cast<unsigned long long>(text.size());
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, first, comm_);
  text.resize(length);
  MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, first, comm_);
  return text;
}

void Communicator::agree(const std::string& error) const {
  const int mine = error.empty() ? size_ : rank_;
  const std::string first =
      first_message(error.empty() ? error : fmt::format("rank {}: {}", mine, error));
  if (!first.empty()) throw CollectiveError(first);
}

void Communicator::abort(const std::string& reason, int code, const std::string& program) const {
  std::cerr << fmt::format("{}: rank {} of {}: {}\n", program, rank_, size_, reason) << std::flush;
  std::fflush(nullptr);
  MPI_Abort(comm_, code);
  std::abort();  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

bool is_collective_error(const std::exception& e) {
  return dynamic_cast<const CollectiveError*>(&e) != nullptr;
}

int run_or_abort(const Communicator& comm, const std::function<int()>& body,
                 const std::string& program,
                 const std::function<bool(const std::exception&)>& collective) {
  try {
    return body();
  } catch (const std::exception& e) {
    if (collective(e)) {
      if (comm.rank() == 0) std::cerr << program << ": error: " << e.what() << "\n";
      return 1;
    }
    const bool ours = dynamic_cast<const Error*>(&e) != nullptr;
    comm.abort(fmt::format("{}: {}", ours ? "error" : "unexpected error", e.what()), ours ? 1 : 2,
               program);
  }
}

}  // namespace gpgpu::mpi
