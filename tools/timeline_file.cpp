// --timeline and --timeline-steps (timeline_file.hpp).
#include "timeline_file.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "text_file.hpp"

namespace gpgpu::cli {

namespace {

// Each mark holds a GL query object until the run ends.
constexpr long long max_timeline_steps = 100000;

std::filesystem::path rank_path(const std::string& path, int rank, int ranks) {
  if (ranks == 1) return path;
  const std::filesystem::path p(path);
  return p.parent_path() /
         fmt::format("{}-rank{}{}", p.stem().string(), rank, p.extension().string());
}

}  // namespace

void add_timeline_options(CLI::App& command, TimelineRequest& request) {
  command.add_option("--timeline", request.path,
                     "Write GPU timestamps of the steps --timeline-steps names here as CSV "
                     "(label, step, host us, GPU us; one file per rank: FILE-rank<R>)");
  command
      .add_option_function<std::vector<long long>>(
          "--timeline-steps",
          [&request](const std::vector<long long>& v) {
            request.first = v.at(0);
            request.last = v.at(1);
          },
          "FIRST,LAST: the steps --timeline records (default 100,299; at most 100,000)")
      ->expected(2)
      ->delimiter(',');
}

void check_timeline_request(const TimelineRequest& t, std::string_view command) {
  if (t.path.empty()) return;
  if (t.first < 0 || t.last < t.first) {
    throw ArgumentError(
        fmt::format("{}: --timeline-steps needs FIRST,LAST with 0 <= FIRST <= LAST; got {},{}",
                    command, t.first, t.last));
  }
  if (t.last - t.first >= max_timeline_steps) {
    throw ArgumentError(fmt::format("{}: --timeline-steps spans at most {} steps; got {},{}",
                                    command, max_timeline_steps, t.first, t.last));
  }
}

std::unique_ptr<gpgpu::Timeline> make_timeline(const TimelineRequest& t, const Context& ctx,
                                               std::size_t marks_per_step) {
  if (t.path.empty()) return nullptr;
  const auto steps = static_cast<std::size_t>(t.last - t.first + 1);
  return std::make_unique<gpgpu::Timeline>(
      ctx, TimelineOptions{.capacity = marks_per_step * steps, .first = t.first, .last = t.last});
}

std::string write_timeline(const TimelineRequest& t, int rank, int ranks,
                           gpgpu::Timeline& timeline) {
  const auto path = rank_path(t.path, rank, ranks);
  write_text(path, timeline.csv());
  return fmt::format("timeline: {} (steps {} to {}; {}; clock drift {:.1f} us)\n",
                     ranks == 1 ? path.string() : t.path + " per rank (-rank<R>)", t.first, t.last,
                     timeline.description(), timeline.clock_drift_us());
}

}  // namespace gpgpu::cli
