#include "shader/compiler_threads.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "gl/context_state.hpp"
#include "gpgpu/error.hpp"
#include "shader/program_batch.hpp"

namespace gpgpu::detail {

namespace {

// GPGPU_COMPILE_THREADS, or -1 when unset or not a number.
int configured_threads() {
  const char* text = std::getenv("GPGPU_COMPILE_THREADS");
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  if (*end != '\0' || n < 0) return -1;
  return static_cast<int>(std::min<long>(n, 64));
}

}  // namespace

int compiler_thread_count(const ContextState& state, std::size_t programs) {
  if (!state.platform.shared_contexts || !state.platform.threads || programs < 2) return 0;
  int threads = configured_threads();
  if (threads < 0) threads = static_cast<int>(std::min(8u, std::thread::hardware_concurrency()));
  return std::min(threads, static_cast<int>(programs));
}

std::unique_ptr<CompilerThreads> CompilerThreads::start(const ContextState& main, int count) {
  std::unique_ptr<CompilerThreads> pool(new CompilerThreads);
  for (int i = 0; i < count; ++i) {
    SharedContextHandle context;
    try {
      context = make_shared_context(main);
    } catch (const Error&) {
      break;  // the platform allows no more contexts: fewer threads
    }
    SharedContext& c = *context;
    pool->workers_.push_back({std::move(context), std::thread([&pool = *pool, &c] { pool.loop(c); })});
  }
  // Each thread makes its context current first; one that cannot never takes a job.
  std::unique_lock lock(pool->mutex_);
  pool->changed_.wait(lock, [&] { return pool->started_ + pool->failed_ == pool->size(); });
  const bool none = pool->started_ == 0;
  lock.unlock();
  if (none) return nullptr;
  return pool;
}

CompilerThreads::~CompilerThreads() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (Worker& w : workers_) {
    if (w.thread.joinable()) w.thread.join();
  }
  workers_.clear();  // the contexts, after their threads let go of them
}

bool CompilerThreads::take_job(std::size_t& job) {
  std::lock_guard lock(mutex_);
  if (todo_ == nullptr || next_ >= todo_->size()) return false;
  job = next_++;
  return true;
}

void CompilerThreads::loop(SharedContext& context) {
  const bool current = make_shared_current(context);
  unsigned seen = 0;
  {
    std::lock_guard lock(mutex_);
    (current ? started_ : failed_) += 1;
    seen = generation_;
  }
  changed_.notify_all();
  if (!current) return;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) break;
      seen = generation_;
    }
    for (std::size_t job = 0; take_job(job);) {
      PendingLink link;
      try {
        const ProgramRequest& r = *(*todo_)[job];
        link = start_link(r.stages, r.options, retrievable_);
        wait_for_link(link);
        GL(glFinish());  // the program complete in the share group before the Context reads it
      } catch (const Error&) {
        link = PendingLink();  // compiled again alone on the Context's thread, with its error
      }
      std::lock_guard lock(mutex_);
      (*links_)[job] = std::move(link);
      ++done_;
      if (done_ == todo_->size()) changed_.notify_all();
    }
  }
  release_shared_current(context);
}

std::vector<PendingLink> CompilerThreads::link(const std::vector<const ProgramRequest*>& todo,
                                               bool retrievable) {
  std::vector<PendingLink> links(todo.size());
  if (todo.empty()) return links;
  std::unique_lock lock(mutex_);
  todo_ = &todo;
  links_ = &links;
  retrievable_ = retrievable;
  next_ = done_ = 0;
  ++generation_;
  changed_.notify_all();
  changed_.wait(lock, [&] { return done_ == todo.size(); });
  todo_ = nullptr;
  links_ = nullptr;
  return links;
}

}  // namespace gpgpu::detail
