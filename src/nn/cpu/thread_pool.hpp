// Internal: the CPU backend's persistent threads. A pool of N threads (the caller's and
// N - 1 workers started once) runs one parallel region at a time: [0, n) is cut into N
// contiguous ranges as even as possible, range w always going to thread w, so that a
// result summed per thread and then across threads in thread order is the same in every
// run (for a given N).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpgpu::nn::detail {

// The cores this process may run on (cpu/cores.cpp natively, cpu/cores_portable.cpp in the
// browser build).
std::size_t available_cores();

class ThreadPool {
 public:
  // work(begin, end, thread) for thread's range of [0, n).
  using RangeWork = std::function<void(std::size_t begin, std::size_t end, std::size_t thread)>;

  explicit ThreadPool(std::size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  std::size_t size() const noexcept { return workers_.size() + 1; }
  // Runs `work` on every non-empty range of [0, n) and returns when all are done; the first
  // exception a range threw is rethrown here.
  void for_ranges(std::size_t n, const RangeWork& work);

 private:
  void worker_loop(std::size_t thread);
  void run_range(std::size_t thread);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const RangeWork* work_ = nullptr;
  std::size_t n_ = 0, generation_ = 0, pending_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace gpgpu::nn::detail
