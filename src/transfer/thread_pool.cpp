#include "transfer/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>

namespace gpgpu::detail {

struct ThreadPool::Job {
  const std::function<void(std::size_t)>* piece = nullptr;
  std::size_t pieces = 0;
  std::atomic<std::size_t> next{0};  // the next piece to hand out
  std::atomic<std::size_t> done{0};  // pieces finished
  std::mutex mutex;
  std::condition_variable finished;
  std::exception_ptr error;
};

ThreadPool::ThreadPool(std::size_t threads) {
  for (std::size_t i = 1; i < std::max<std::size_t>(threads, 1); ++i) {
    workers_.emplace_back([this] { work(); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_) worker.join();
}

// Runs one piece of `job` if any is left; false when none was.
bool ThreadPool::run_one(Job& job) {
  const std::size_t i = job.next.fetch_add(1);
  if (i >= job.pieces) return false;
  try {
    (*job.piece)(i);
  } catch (...) {
    std::lock_guard lock(job.mutex);
    if (!job.error) job.error = std::current_exception();
  }
  if (job.done.fetch_add(1) + 1 == job.pieces) {
    std::lock_guard lock(job.mutex);
    job.finished.notify_all();
  }
  return true;
}

void ThreadPool::work() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = jobs_.front();
      // Every piece handed out: nobody else needs to find this job in the queue.
      if (job->next.load() + 1 >= job->pieces) jobs_.pop_front();
    }
    run_one(*job);
  }
}

void ThreadPool::parallel_for(std::size_t pieces, const std::function<void(std::size_t)>& piece) {
  if (pieces == 0) return;
  if (pieces == 1 || workers_.empty()) {
    for (std::size_t i = 0; i < pieces; ++i) piece(i);
    return;
  }
  auto job = std::make_shared<Job>();
  job->piece = &piece;
  job->pieces = pieces;
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(job);
  }
  if (pieces - 1 >= workers_.size()) {
    wake_.notify_all();
  } else {
    for (std::size_t i = 1; i < pieces; ++i) wake_.notify_one();
  }
  while (run_one(*job)) {
  }
  {
    std::lock_guard lock(mutex_);
    const auto it = std::find(jobs_.begin(), jobs_.end(), job);
    if (it != jobs_.end()) jobs_.erase(it);
  }
  std::unique_lock lock(job->mutex);
  job->finished.wait(lock, [&] { return job->done.load() == job->pieces; });
  if (job->error) std::rethrow_exception(job->error);
}

void parallel_memcpy(ThreadPool& pool, void* to, const void* from, std::size_t bytes,
                     std::size_t min_piece) {
  const std::size_t pieces = std::min(
      pool.threads(), std::max<std::size_t>(bytes / std::max<std::size_t>(min_piece, 1), 1));
  if (pieces <= 1) {
    std::memcpy(to, from, bytes);
    return;
  }
  const std::size_t size = (bytes / pieces + 63) / 64 * 64;  // whole cache lines
  auto* out = static_cast<unsigned char*>(to);
  const auto* in = static_cast<const unsigned char*>(from);
  pool.parallel_for(pieces, [&](std::size_t i) {
    const std::size_t begin = std::min(bytes, i * size);
    const std::size_t end = i + 1 == pieces ? bytes : std::min(bytes, (i + 1) * size);
    if (begin < end) std::memcpy(out + begin, in + begin, end - begin);
  });
}

std::size_t default_copy_threads() {
  const std::size_t hardware = std::thread::hardware_concurrency();
  return std::clamp<std::size_t>(hardware / 2, 1, 16);
}

}  // namespace gpgpu::detail
