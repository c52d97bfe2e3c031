// available_cores (thread_pool.hpp) natively: the CPU affinity mask, so that taskset and
// cgroup cpusets are honoured. The browser build has no affinity: cores_portable.cpp.
#include <sched.h>

#include <algorithm>
#include <thread>

#include "cpu/thread_pool.hpp"

namespace gpgpu::nn::detail {

std::size_t available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return static_cast<std::size_t>(count);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace gpgpu::nn::detail
