// `gpgpu earth --timeline FILE`: GPU timestamps of a window of the run's steps (gpgpu::Timeline,
// Model::set_timeline), one CSV per rank.
#include <iostream>

#include "earth_command.hpp"

namespace gpgpu::cli::earth {

namespace ge = gpgpu::earth;

std::unique_ptr<Timeline> start_timeline(const TimelineRequest& t, const Context& ctx,
                                         ge::Model& model) {
  // Up to four marks a step (step, and a swap's three), so the window always fits.
  auto timeline = make_timeline(t, ctx, 4);
  model.set_timeline(timeline.get());
  return timeline;
}

void finish_timeline(const TimelineRequest& t, ge::Team& team, ge::Model& model,
                     Timeline& timeline) {
  model.set_timeline(nullptr);
  const auto line = write_timeline(t, team.rank(), team.size(), timeline);
  if (team.rank() == 0) std::cout << line;
}

}  // namespace gpgpu::cli::earth
