// `gpgpu earth --timeline FILE`: GPU timestamps of a window of the run's steps (gpgpu::Timeline,
// Model::set_timeline), one CSV per rank.
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "earth_command.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::cli::earth {

namespace ge = gpgpu::earth;

constexpr long long max_timeline_steps = 100000;

void check_timeline_request(const TimelineRequest& t) {
  if (t.path.empty()) return;
  if (t.first < 0 || t.last < t.first) {
    throw ArgumentError(
        fmt::format("earth: --timeline-steps needs FIRST,LAST with 0 <= FIRST <= LAST; got {},{}",
                    t.first, t.last));
  }
  // Each mark holds a GL query object until the run ends.
  if (t.last - t.first >= max_timeline_steps) {
    throw ArgumentError(fmt::format("earth: --timeline-steps spans at most {} steps; got {},{}",
                                    max_timeline_steps, t.first, t.last));
  }
}

std::unique_ptr<Timeline> start_timeline(const TimelineRequest& t, const Context& ctx,
                                         ge::Model& model) {
  if (t.path.empty()) return nullptr;
  // Up to four marks a step (step, and a swap's three), so the window always fits.
  const auto steps = static_cast<std::size_t>(t.last - t.first + 1);
  auto timeline = std::make_unique<Timeline>(
      ctx, TimelineOptions{.capacity = 4 * steps, .first = t.first, .last = t.last});
  model.set_timeline(timeline.get());
  return timeline;
}

// FILE on one rank; FILE's stem with -rank<R> before its extension on several.
std::filesystem::path timeline_path(const std::string& path, const ge::Team& team) {
  if (team.size() == 1) return path;
  const std::filesystem::path p(path);
  return p.parent_path() /
         fmt::format("{}-rank{}{}", p.stem().string(), team.rank(), p.extension().string());
}

void finish_timeline(const TimelineRequest& t, ge::Team& team, ge::Model& model,
                     Timeline& timeline) {
  model.set_timeline(nullptr);
  const auto path = timeline_path(t.path, team);
  write_text(path, timeline.csv());
  if (team.rank() != 0) return;
  std::cout << fmt::format("timeline: {} (steps {} to {}; {}; clock drift {:.1f} us)\n",
                           team.size() == 1 ? path.string() : t.path + " per rank (-rank<R>)",
                           t.first, t.last, timeline.description(), timeline.clock_drift_us());
}

}  // namespace gpgpu::cli::earth
