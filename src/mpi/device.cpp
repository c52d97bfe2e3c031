// Which device a rank's Context goes on (see gpgpu/mpi/device.hpp).
#include "gpgpu/mpi/device.hpp"

#include <cstdlib>
#include <vector>

namespace gpgpu::mpi {

std::string device_for_rank(const Communicator& comm, const std::string& requested) {
  if (!requested.empty() && requested != "auto") return requested;
  const char* env = std::getenv("GPGPU_DEVICE");
  if (env != nullptr && *env != '\0') return env;
  std::vector<int> gpus;
  for (const auto& d : list_devices()) {
    if (d.kind == "gpu") gpus.push_back(d.index);
  }
  if (gpus.empty()) return "auto";
  return std::to_string(gpus[static_cast<std::size_t>(comm.local_rank()) % gpus.size()]);
}

Context make_context(const Communicator& comm, ContextOptions options) {
  options.device = device_for_rank(comm, options.device);
  return Context(options);
}

}  // namespace gpgpu::mpi
