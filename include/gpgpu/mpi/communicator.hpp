// gpgpu/mpi/communicator.hpp — MPI for the life of the process, the ranks, and how a
// failure on one rank ends the whole job instead of leaving the others waiting.
//
//   int main(int argc, char** argv) {
//     gpgpu::mpi::Session session(argc, argv);            // MPI_Init_thread ... MPI_Finalize
//     gpgpu::mpi::Communicator world;                     // MPI_COMM_WORLD
//     return gpgpu::mpi::run_or_abort(world, [&] {
//       ...                                               // an exception here ends every rank
//       return 0;
//     });
//   }
//
// Failures. A collective (allreduce, a halo exchange) waits for every rank, so a rank that
// throws and leaves would hang the others. Two rules prevent that:
//   - checks every rank can make together (Buffers of different lengths, bad index lists)
//     are agreed on with one small MPI_Allreduce, and every rank throws the same
//     CollectiveError: nobody is left waiting, and the job may end normally;
//   - anything else that escapes run_or_abort's body on any rank (bad input seen by one rank
//     only, a file that rank cannot write, no GPU on its node) is printed as
//     "<program>: rank R of N: error: <what>" and ends the job with MPI_Abort, which stops
//     every rank, also those waiting in a collective.
#pragma once

#include <mpi.h>

#include <exception>
#include <functional>
#include <string>

#include "gpgpu/error.hpp"

namespace gpgpu::mpi {

// Every rank of a communicator threw this together, with the same message: nothing is left
// waiting, so run_or_abort lets the job end normally (rank 0 prints it, every rank returns 1).
class CollectiveError : public Error {
 public:
  using Error::Error;
};

// MPI_Init_thread with MPI_THREAD_FUNNELED (only the thread that made the Session calls MPI;
// gpgpu's own transfer threads never do) and MPI_Finalize at the end.
class Session {
 public:
  // Throws Error when MPI is initialised already or does not start.
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

// An MPI communicator with its rank, size and node-local rank, and the collective error
// handling gpgpu's MPI code uses.
class Communicator {
 public:
  Communicator();                        // MPI_COMM_WORLD
  explicit Communicator(MPI_Comm comm);  // borrowed: the caller frees it
  int rank() const noexcept { return rank_; }  // this process's rank
  int size() const noexcept { return size_; }  // the ranks
  // The rank and rank count among the processes of this node (MPI_Comm_split_type with
  // MPI_COMM_TYPE_SHARED): what picks a rank's GPU.
  int local_rank() const noexcept { return local_rank_; }
  int local_size() const noexcept { return local_size_; }  // (above)
  MPI_Comm get() const noexcept { return comm_; }  // the MPI handle

  // Collective: the non-empty `message` of the lowest rank that has one, on every rank, or
  // "" when no rank has one. One MPI_Allreduce of an int, plus a broadcast when some rank
  // has a message.
  std::string first_message(const std::string& message) const;
  // Collective: throws CollectiveError on every rank when any rank passes a non-empty
  // `error` ("rank R: <error>", R the lowest such rank); returns on every rank otherwise.
  void agree(const std::string& error) const;
  // Prints "<program>: rank R of N: <reason>" to stderr and calls MPI_Abort: every rank of
  // the job ends with `code`.
  [[noreturn]] void abort(const std::string& reason, int code = 1,
                          const std::string& program = "gpgpu") const;

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
};

// `e` is a CollectiveError (every rank threw it at once).
bool is_collective_error(const std::exception& e);

// Runs `body` and returns its result. An exception escaping it: if `collective(e)` (every
// rank throws it at once; default: a CollectiveError), rank 0 prints "<program>: error:
// <what>" and every rank returns 1; otherwise abort(): 1 for a gpgpu::Error, 2 for another
// exception.
int run_or_abort(
    const Communicator& comm, const std::function<int()>& body,
    const std::string& program = "gpgpu",
    const std::function<bool(const std::exception&)>& collective = is_collective_error);

}  // namespace gpgpu::mpi
