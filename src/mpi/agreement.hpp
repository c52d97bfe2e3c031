// What every collective of gpgpu::mpi does first: agree that all ranks passed the same kind
// of thing and that no rank's own checks failed, so that a mismatch throws everywhere
// instead of hanging or truncating.
#pragma once

#include <initializer_list>
#include <string>

#include <mpi.h>

#include "gpgpu/element_type.hpp"
#include "gpgpu/mpi/communicator.hpp"

namespace gpgpu::mpi::detail {

// A number every rank must pass alike, and what it is ("element count").
struct Same {
  const char* name;
  long long value;
};

// Collective: throws CollectiveError on every rank when some rank's `error` is not empty, or
// when the ranks' values differ ("<what>: the ranks passed different <name>s: from A to B").
// One MPI_Allreduce of 1 + 2 x values.size() integers when all is well.
void agree_on(const Communicator& comm, const std::string& what, std::initializer_list<Same> values,
              const std::string& error);

// The MPI type of a Buffer element type.
MPI_Datatype datatype_of(ElementType type);

}  // namespace gpgpu::mpi::detail
