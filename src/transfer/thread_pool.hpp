// Internal: a small pool of worker threads for host copies (memcpy into and out of staging).
//
// One thread's memcpy reaches 5-15 GB/s, below a PCIe 4/5 bus; several together approach
// it. The workers live as long as the pool (no thread start per copy), and several callers
// may split work at once (the caller of an upload and the thread delivering downloads):
// each call's pieces go into one shared queue, and every caller works on its own pieces
// too, so a call never waits behind another's.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace gpgpu::detail {

class ThreadPool {
 public:
  // `threads` counts the caller: 1 means no workers (everything runs on the caller).
  explicit ThreadPool(std::size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  std::size_t threads() const noexcept { return workers_.size() + 1; }

  // Runs piece(0) ... piece(pieces - 1), spread over the workers and the calling thread;
  // returns when all have run. The first exception a piece throws is rethrown here.
  void parallel_for(std::size_t pieces, const std::function<void(std::size_t)>& piece);

 private:
  struct Job;
  void work();
  static bool run_one(Job& job);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> jobs_;
  std::vector<std::thread> workers_;
  bool stopping_ = false;
};

// memcpy split over the pool in pieces of at least `min_piece` bytes (whole cache lines).
void parallel_memcpy(ThreadPool& pool, void* to, const void* from, std::size_t bytes,
                     std::size_t min_piece = std::size_t{1} << 19);

// Threads for host copies on this machine: half its hardware threads (the other half is
// left to the GL driver and the application), at least 1, at most 16.
std::size_t default_copy_threads();

}  // namespace gpgpu::detail
