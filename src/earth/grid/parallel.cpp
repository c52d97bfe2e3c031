// The grid build's fork-join pool (see parallel.hpp).
#include "earth/grid/parallel.hpp"

#include <condition_variable>
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
    finished_.wait(lock, [&] { return pending_ == 0; });
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
        start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        if (t >= parts_) continue;  // this loop has fewer parts than the pool has threads
      }
      run_part(t);
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) finished_.notify_one();
    }
  }

  std::mutex caller_;  // one loop at a time
  std::mutex mutex_;
  std::condition_variable start_, finished_;
  const std::function<void(std::size_t)>* part_ = nullptr;
  std::size_t parts_ = 0, pending_ = 0, generation_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

Pool& pool() {
  static Pool shared(worker_count());
  return shared;
}

}  // namespace

std::size_t worker_count() {
  static const std::size_t count =
      std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 64);
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
