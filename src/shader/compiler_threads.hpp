// Internal: compiling a batch of programs on threads of gpgpu's own, each with a context in
// the Context's share group (gl/platform.hpp, make_shared_context).
//
// Why: GL_KHR_parallel_shader_compile lets a driver compile in the background, but the
// H100's driver, which advertises it, finished a batch of 15 GEMM candidates started together
// in 1.9 s, one program's 0.125 s times their number (2026-11-26): it compiles one program at
// a time. A driver compiles inside the calling thread's context, so contexts on several
// threads compile at once. A program linked in a shared context belongs to the share group:
// once its thread has waited for the link and finished, the Context uses it as its own.
//
// GPGPU_COMPILE_THREADS=N sets how many threads (0: none, the driver's extension or one by
// one as before); by default one per core, at most 8.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "gl/platform.hpp"
#include "shader/program_link.hpp"

namespace gpgpu::detail {

struct ContextState;
struct ProgramRequest;

// How many compiler threads a batch of `programs` gets on this platform (0: none).
int compiler_thread_count(const ContextState& state, std::size_t programs);

class CompilerThreads {
 public:
  // Starts `count` threads, each with its own shared context; fewer where the platform
  // refuses more contexts, null where it refuses the first. `main` must be current.
  static std::unique_ptr<CompilerThreads> start(const ContextState& main, int count);
  ~CompilerThreads();
  CompilerThreads(const CompilerThreads&) = delete;
  CompilerThreads& operator=(const CompilerThreads&) = delete;

  int size() const { return static_cast<int>(workers_.size()); }

  // Compiles and links every request, spread over the threads; each link is complete when
  // this returns (its statuses not read yet: finish_link does that on the Context's thread).
  // A request whose GL calls failed on its thread comes back empty (valid() false).
  std::vector<PendingLink> link(const std::vector<const ProgramRequest*>& todo, bool retrievable);

 private:
  struct Worker {
    SharedContextHandle context;
    std::thread thread;
  };
  CompilerThreads() = default;
  void loop(SharedContext& context);
  bool take_job(std::size_t& job);  // the next request of the batch, if any

  std::vector<Worker> workers_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  unsigned generation_ = 0;  // counts batches: a worker wakes for each new one
  const std::vector<const ProgramRequest*>* todo_ = nullptr;
  std::vector<PendingLink>* links_ = nullptr;
  bool retrievable_ = false;
  std::size_t next_ = 0, done_ = 0;
  int started_ = 0, failed_ = 0;  // threads that made their context current, or could not
};

}  // namespace gpgpu::detail
