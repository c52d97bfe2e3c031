// available_cores (thread_pool.hpp) in the browser build: Emscripten's C library declares
// sched_getaffinity but does not define it, so the count is what the library says
// (navigator.hardwareConcurrency with threads, else 1). Natively cores.cpp is used.
#include <algorithm>
#include <thread>

#include "cpu/thread_pool.hpp"

namespace gpgpu::nn::detail {

std::size_t available_cores() {
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace gpgpu::nn::detail
