// The grid build's fork-join pool (see parallel.hpp).
#include "earth/grid/parallel.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>

namespace gpgpu::earth::detail {

namespace {

// True on a thread that is running a part: a loop started there runs serially.
thread_local bool inside_part = false;

class Pool {
 public:
  explicit Pool(std::size_t threads) {
    for (std::size_t t = 1; t < threads; ++t) threads_.emplace_back([this, t] { work(t); });
  }
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    start_.notify_all();
    for (auto& thread : threads_) thread.join();
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  std::size_t size() const { return threads_.size() + 1; }

  void run(std::size_t parts, const std::function<void(std::size_t)>& part) {
    std::lock_guard one_loop(caller_);
    {
      std::lock_guard lock(mutex_);
      part_ = &part;
      parts_ = parts;
      pending_ = std::min(parts, size()) - 1;
      error_ = nullptr;
      ++generation_;
    }
    start_.notify_all();
    run_part(0);
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [&] { return pending_.load() == 0; });
    part_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // Thread t runs parts t, t + size(), ...
  void run_part(std::size_t t) {
    inside_part = true;
    try {
      for (std::size_t q = t; q < parts_; q += size()) (*part_)(q);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    inside_part = false;
  }

  void work(std::size_t t) {
    std::size_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        start_.wait(lock, [&] { return stopping_.load() || generation_.load() != seen; });
        if (stopping_) return;
        seen = generation_.load();
        if (t >= parts_) continue;  // this loop has fewer parts than the pool has threads
      }
      run_part(t);
      if (pending_.fetch_sub(1) == 1) {
        std::lock_guard lock(mutex_);
        finished_.notify_one();
      }
    }
  }

  std::mutex caller_;  // one loop at a time
  std::mutex mutex_;
  std::condition_variable start_, finished_;
  const std::function<void(std::size_t)>* part_ = nullptr;
  // Written under mutex_ (so that a sleeper cannot miss a change).
  std::size_t parts_ = 0;
  std::atomic<std::size_t> pending_{0}, generation_{0};
  std::atomic<bool> stopping_{false};
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

Pool& pool() {
  static Pool shared(worker_count());
  return shared;
}

}  // namespace

std::size_t worker_count() {
  static const std::size_t count = [] {
    const char* chosen = std::getenv("GPGPU_EARTH_THREADS");
    const long wanted = chosen != nullptr ? std::atol(chosen) : 0;
    return std::clamp<std::size_t>(
        wanted > 0 ? static_cast<std::size_t>(wanted) : std::thread::hardware_concurrency(), 1, 64);
  }();
  return count;
}

void run_parts(std::size_t parts, const std::function<void(std::size_t)>& part) {
  if (parts <= 1 || inside_part || worker_count() == 1) {
    for (std::size_t t = 0; t < parts; ++t) part(t);
    return;
  }
  pool().run(parts, part);
}

}  // namespace gpgpu::earth::detail
