// gpgpu/timeline.hpp — when the GPU got through the commands before each point of a program,
// on the host's clock, without waiting for it.
//
//   gpgpu::Timeline tl(ctx);
//   for (int step = 0; step < 100; ++step) {
//     tl.mark("step", step);      // GPU: done with everything submitted before; host: now
//     kernel.run(...);
//   }
//   for (const auto& m : tl.marks()) ...  // waits for the GPU once, then resolves every mark
//   std::string csv = tl.csv();          // label,index,host_us,gpu_us
//
// Where a Profiler scope times a stretch of work and waits for the GPU before it starts (so
// no earlier work counts), a Timeline only drops timestamps into the command stream: the
// program keeps its own overlap of host and GPU, which is what a timeline is for (seeing
// whether the GPU idles while the host waits for something else, an MPI message say). Each
// mark is a GPU timestamp query (GL_EXT_disjoint_timer_query's glQueryCounterEXT) plus the
// host's steady clock at the call. The GPU's clock is put on the host's by reading both at
// once when the Timeline is made (glGetInteger64v(GL_TIMESTAMP_EXT)); marks() reports the
// drift of that offset by the time it resolves them (it was under 11 us over a second on the
// H200).
//
// Limits. Marks past `capacity` are dropped and counted (dropped()). A mark's GPU time is
// -1 where the device has no timestamp queries, on software devices (llvmpipe's timer
// queries do not see shader work: its GPU times would mean nothing), and for every mark
// when the GPU reported a disjoint event (a clock change) before marks() resolved them.
// `first`/`last` keep only marks whose index lies in [first, last], so a long run can mark
// every step and keep a window. A Timeline belongs to the thread of its Context.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpgpu/context.hpp"

namespace gpgpu {

// What a Timeline keeps.
struct TimelineOptions {
  std::size_t capacity = 4096;  // marks kept (each holds one query object)
  long long first = std::numeric_limits<long long>::min();  // indices kept: [first, last]
  long long last = std::numeric_limits<long long>::max();  // (above)
};

// One mark: when the host made it and when the GPU reached it.
struct TimelineMark {
  std::string label;    // as given to mark()
  long long index = 0;  // as given to mark()
  double host_us = 0;  // steady clock, microseconds since the Timeline was made
  double gpu_us = -1;  // the GPU's time on the same clock; -1 when unknown (see Limits)
};

// Marks on the GPU's clock: each records when the host made it and when the GPU got there
// (the manual at the top of this header).
class Timeline {
 public:
  // A timeline of the work submitted to `context`.
  explicit Timeline(const Context& context, const TimelineOptions& options = {});
  ~Timeline();
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  // Records a mark (see above) unless `index` is outside [first, last] or the Timeline is
  // full. Never waits for the GPU.
  void mark(std::string_view label, long long index = 0);
  // Waits for the GPU, then every mark so far, in the order made.
  std::vector<TimelineMark> marks();
  // marks() as CSV: a header line "label,index,host_us,gpu_us", then one line a mark.
  std::string csv();

  bool has_gpu_times() const noexcept;  // false: every gpu_us is -1 (description() says why)
  const std::string& description() const noexcept;  // where the GPU times come from, or why none
  std::size_t dropped() const noexcept;    // marks refused for want of capacity
  double clock_drift_us() const noexcept;  // the offset's change found by the last marks()

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpgpu
