// gpgpu/profiler.hpp — how long GPU work takes, per name: counts, totals and medians.
//
//   gpgpu::Profiler prof(ctx);
//   for (int i = 0; i < 10; ++i) {
//     auto scope = prof.scope("saxpy");   // times everything submitted until it ends
//     saxpy.run({{"x", x}, {"y", y}, {"alpha", 2.0f}});
//   }                                     // the scope ends here
//   std::cout << prof.table();            // or prof.json()
//
// Each scope yields two times:
//   GPU time   from GPU timestamps (GL_EXT_disjoint_timer_query's glQueryCounterEXT) taken
//              where the scope starts and ends: the time the GPU spent on the scope's
//              commands. Samples hit by a disjoint event (the GPU changed clocks or was
//              switched away) are dropped and counted, never reported as times.
//   wall time  steady_clock from the start of the scope until a fence (glFenceSync) placed
//              at its end has signalled: what the caller waited, including the driver.
// A scope first waits for work submitted before it (a fence), so neither time includes
// earlier work. Where the device has no timer queries (or ProfilerOptions says not to use
// them) the GPU column is empty and timing_description() says so; wall times remain.
//
// Scopes nest (timestamps, unlike GL_TIME_ELAPSED queries, may overlap) and they coexist
// with ComputeKernel::set_timing; record() adds times measured elsewhere, such as
// ComputeKernel::last_gpu_ns(). A Profiler must outlive its scopes and belongs to the
// thread of its Context.
#pragma once

#include <chrono>
#include <concepts>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpgpu/context.hpp"

namespace gpgpu {

// What record() needs of a kernel: its label and the GPU time of its last run.
// ComputeKernel, TransformFeedbackKernel, FragmentKernel, MatmulPlan's kernels and Sequence
// (a whole replay) have them.
template <class K>
concept TimedKernel = requires(const K& kernel) {
  { kernel.label() } -> std::convertible_to<std::string>;
  { kernel.last_gpu_ns() } -> std::convertible_to<double>;
};

// Where a Profiler's times come from.
enum class TimingSource {
  TimerQueries,     // GPU timestamps and the fenced wall clock
  FencedWallClock,  // the fenced wall clock only
};

// How a Profiler times.
struct ProfilerOptions {
  // Use GPU timer queries where the device has them. false gives what a device without
  // GL_EXT_disjoint_timer_query gets: the fenced wall clock only.
  bool use_timer_queries = true;
};

// Times of one name. Times are in milliseconds; a field is -1 when there are no samples.
struct ProfileStats {
  std::string name;             // the scope's or kernel's name
  std::size_t count = 0;        // scopes (or record() calls) of this name
  std::size_t gpu_samples = 0;  // of them with a GPU time
  std::size_t disjoint = 0;     // GPU samples dropped because of a disjoint event
  double gpu_total_ms = -1, gpu_median_ms = -1, gpu_min_ms = -1, gpu_max_ms = -1;  // GPU time
  std::size_t wall_samples = 0;  // samples with a wall time
  double wall_total_ms = -1, wall_median_ms = -1, wall_min_ms = -1, wall_max_ms = -1;  // wall
};

// Times named scopes of GPU work (GPU timestamps where the device has them, and the fenced
// wall clock) and reports statistics per name (the manual at the top of this header).
class Profiler {
 public:
  // A running measurement; it ends at stop() or when it goes out of scope.
  class Scope {
   public:
    Scope(Scope&& other) noexcept;  // the moved-from scope records nothing
    Scope& operator=(Scope&&) = delete;
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope();
    // Ends the measurement and records it. Further calls do nothing.
    void stop();

   private:
    friend class Profiler;
    Scope(Profiler* profiler, std::size_t slot) : profiler_(profiler), slot_(slot) {}
    Profiler* profiler_;
    std::size_t slot_;
  };

  // A profiler of the work submitted to `context`.
  explicit Profiler(const Context& context, const ProfilerOptions& options = {});
  ~Profiler();
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  // Starts timing the work submitted from now until the scope ends, under `name`.
  [[nodiscard]] Scope scope(std::string name);
  // Adds a measurement taken elsewhere, in nanoseconds; a negative time means "none".
  void record(const std::string& name, double gpu_ns, double wall_ns = -1);
  // Adds the kernel's last_gpu_ns() (its dispatch or draw alone) under the kernel's label:
  // any kernel path (TimedKernel).
  template <TimedKernel Kernel>
  void record(const Kernel& kernel, double wall_ns = -1) {
    record(std::string(kernel.label()), kernel.last_gpu_ns(), wall_ns);
  }

  TimingSource timing_source() const noexcept { return source_; }  // where times come from
  // One line saying where the times come from, e.g. "GPU timestamps (GL_EXT_disjoint_timer_query)
  // and fenced wall clock" or why there are no GPU times.
  const std::string& timing_description() const noexcept { return description_; }

  // Statistics per name, in the order the names first appeared.
  std::vector<ProfileStats> stats() const;
  // The statistics of one name; throws ArgumentError for a name never recorded.
  ProfileStats stats(const std::string& name) const;
  // A fixed-width table: name, count, GPU total/median/min, wall total/median.
  std::string table() const;
  // {"device": ..., "timing": ..., "entries": [{"name": ..., "count": ..., "gpu_ms": {...}}]}
  std::string json() const;
  // Forgets every sample (scopes still running keep running).
  void clear();

 private:
  struct Samples {
    std::string name;
    std::vector<double> gpu_ns, wall_ns;
    std::size_t count = 0;
    std::size_t disjoint = 0;
  };
  struct OpenScope {
    bool active = false;
    std::string name;
    std::chrono::steady_clock::time_point start;
    unsigned start_query = 0, end_query = 0;
    std::uint64_t disjoint_epoch = 0;
  };
  void end_scope(std::size_t slot);
  void abandon_scope(std::size_t slot) noexcept;
  Samples& samples_for(const std::string& name);
  bool poll_disjoint();

  std::shared_ptr<detail::ContextState> state_;
  TimingSource source_ = TimingSource::FencedWallClock;
  std::string description_;
  std::vector<Samples> samples_;
  std::vector<OpenScope> open_;
  std::uint64_t disjoint_epoch_ = 0;  // disjoint events seen so far
};

}  // namespace gpgpu
