// The CPU backend's thread pool (thread_pool.hpp) and the thread count it is given
// (cpu_threads, declared in gpgpu/nn/model.hpp).
#include "cpu/thread_pool.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "gpgpu/nn/model.hpp"
#include "thread_name.hpp"

namespace gpgpu::nn {

namespace {

// A thread-count variable: unset or empty -> nullopt; "N" (or OpenMP's "N,M,..." list,
// whose first entry is the outer level) -> N >= 1; anything else is an error.
std::optional<std::size_t> thread_variable(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  const std::string value(text);
  const std::string first = value.substr(0, value.find(','));
  const bool digits =
      !first.empty() && first.size() <= 6 &&
      std::all_of(first.begin(), first.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || std::stoul(first) == 0) {
    throw ArgumentError(
        fmt::format("${} must be a positive number of threads; it is \"{}\"", name, value));
  }
  return std::stoul(first);
}

}  // namespace

std::size_t cpu_threads(const BackendOptions& options) {
  if (options.threads > 0) return options.threads;
  std::size_t threads = detail::available_cores();
  auto cap = thread_variable("GPGPU_THREADS");
  if (!cap) cap = thread_variable("OMP_NUM_THREADS");
  if (cap) threads = std::min(threads, *cap);
  return std::max<std::size_t>(threads, 1);
}

namespace detail {

ThreadPool::ThreadPool(std::size_t threads) {
  for (std::size_t t = 1; t < std::max<std::size_t>(threads, 1); ++t) {
    workers_.emplace_back([this, t] { worker_loop(t); });
    // Named here, before the pool is in use, so that a tool (or a test) tells the pool's
    // threads from the GL driver's from the start.
    gpgpu::detail::name_thread(workers_.back(), "gpgpu-nn-cpu");
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::run_range(std::size_t thread) {
  const std::size_t threads = size();
  const std::size_t begin = n_ * thread / threads, end = n_ * (thread + 1) / threads;
  if (begin == end) return;
  try {
    (*work_)(begin, end, thread);
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::current_exception();
  }
}

void ThreadPool::worker_loop(std::size_t thread) {
  std::size_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    run_range(thread);
    std::lock_guard lock(mutex_);
    if (--pending_ == 0) done_.notify_one();
  }
}

void ThreadPool::for_ranges(std::size_t n, const RangeWork& work) {
  if (n == 0) return;
  if (workers_.empty() || n == 1) {
    work(0, n, 0);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    work_ = &work;
    n_ = n;
    pending_ = workers_.size();
    error_ = nullptr;
    ++generation_;
  }
  start_.notify_all();
  run_range(0);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  work_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace detail

}  // namespace gpgpu::nn
