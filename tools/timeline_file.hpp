// --timeline FILE --timeline-steps FIRST,LAST, shared by `gpgpu earth` and `gpgpu train`: GPU
// timestamps of a window of a run's steps (gpgpu::Timeline), written as CSV when the run ends
// (FILE on one process; FILE's stem with -rank<R> before its extension on each MPI rank).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "gpgpu/timeline.hpp"

namespace gpgpu::cli {

struct TimelineRequest {
  std::string path;  // empty: none
  long long first = 100, last = 299;
};

// Adds both options to `command`; `request` must outlive its parsing.
void add_timeline_options(CLI::App& command, TimelineRequest& request);
// Throws ArgumentError (naming `command`) for a window that is empty, negative or too long.
void check_timeline_request(const TimelineRequest& request, std::string_view command);
// A gpgpu::Timeline for the window with room for `marks_per_step` marks a step; null without a
// path.
std::unique_ptr<gpgpu::Timeline> make_timeline(const TimelineRequest& request, const Context& ctx,
                                               std::size_t marks_per_step);
// Writes this rank's CSV; returns the line the lead rank prints about it.
std::string write_timeline(const TimelineRequest& request, int rank, int ranks,
                           gpgpu::Timeline& timeline);

}  // namespace gpgpu::cli
