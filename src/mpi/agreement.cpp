// The agreement check every collective makes first (see agreement.hpp).
#include "mpi/agreement.hpp"

#include <vector>

#include <fmt/format.h>

namespace gpgpu::mpi::detail {

void agree_on(const Communicator& comm, const std::string& what, std::initializer_list<Same> values,
              const std::string& error) {
  // One MPI_MAX over {failed?, v0, -v0, v1, -v1, ...}: max(-v) = -min(v).
  std::vector<long long> mine{error.empty() ? 0LL : 1LL}, all;
  for (const Same& v : values) mine.push_back(v.value), mine.push_back(-v.value);
  all.resize(mine.size());
  MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_LONG_LONG, MPI_MAX,
                comm.get());
  if (all[0] != 0) comm.agree(error.empty() ? error : what + ": " + error);
  std::size_t i = 1;
  for (const Same& v : values) {
    if (all[i] != -all[i + 1]) {
      throw CollectiveError(fmt::format("{}: the ranks passed different {}s: from {} to {}", what,
                                        v.name, -all[i + 1], all[i]));
    }
    i += 2;
  }
}

MPI_Datatype datatype_of(ElementType type) {
  switch (type) {
    case ElementType::Float32:
      return MPI_FLOAT;
    case ElementType::Int32:
      return MPI_INT32_T;
    case ElementType::Uint32:
      return MPI_UINT32_T;
  }
  return MPI_DATATYPE_NULL;
}

}  // namespace gpgpu::mpi::detail
