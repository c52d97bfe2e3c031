// The option checks of `gpgpu earth`, tried as a new user would: values outside their
// documented ranges are refused before anything runs, with a message naming the option,
// the range and the value; a Courant number past the stable range runs only when forced
// (with a warning), and the blow-up it causes stops the run with the step and the field;
// `earth bench --ranks` times one rank's share and refuses a rank outside the team.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "command.hpp"

namespace fs = std::filesystem;

namespace {

gpgpu::test::CommandResult earth(const std::string& arguments) {
  return gpgpu::test::run_command(
      GPGPU_CLI_PATH, "earth " + arguments,
      fs::temp_directory_path() / ("gpgpu_earth_cli_" + std::to_string(::getpid()) + ".log"));
}

struct Refused {
  std::string arguments, message;
};

}  // namespace

TEST(EarthCli, RefusesValuesOutsideTheDocumentedRanges) {
  const auto out =
      fs::temp_directory_path() / ("gpgpu_earth_refused_" + std::to_string(::getpid()));
  const std::vector<Refused> cases{
      {"--days -1", "--days must be a positive number of days; got -1"},
      {"--days 0", "--days must be a positive number of days; got 0"},
      {"--days nan", "--days must be a positive number of days; got nan"},
      {"--courant 100", "--courant 100 is past 2.5"},
      {"--courant 0", "--courant must be a positive number; got 0"},
      {"--courant -2 --force-courant", "--courant must be a positive number; got -2"},
      {"--correction 1", "--correction must be in [0, 1); got 1"},
      {"--diffusion-hours -3", "--diffusion-hours must be >= 0 (0: off); got -3"},
      {"--compare-day 3", "--compare-day needs --save or --reference"},
      {"--halo-steps 17", "halo_steps must be in 1..16 (0: chosen); got 17"},
      {"--halo stage --halo-steps 2", "halo_steps 2 needs the halo swapped per step"},
      {"--save --days 2 --compare-day 5", "--compare-day must be in (0, 2], the run's days; got 5"},
  };
  for (const auto& c : cases) {
    const auto r = earth("--level 2 --no-pictures --out " + out.string() + " " + c.arguments);
    EXPECT_EQ(r.status, 1) << c.arguments << "\n" << r.output;
    EXPECT_NE(r.output.find("gpgpu: error: earth: " + c.message), std::string::npos)
        << c.arguments << "\n"
        << r.output;
    EXPECT_FALSE(fs::exists(out)) << c.arguments << ": refused, yet it made its folder";
  }
  const auto r = earth("--level 2 --no-pictures --courant 100");
  EXPECT_NE(r.output.find("add --force-courant to run it anyway"), std::string::npos) << r.output;
}

TEST(EarthCli, AForcedUnstableCourantNumberStopsWhenTheStateBlowsUp) {
  // One step of 86,400 s at level 3 (the example): the depth leaves its range.
  const auto r = earth("--level 3 --days 1 --courant 100 --force-courant --no-pictures");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("warning: --courant 100 is past 2.5"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("gpgpu: error: earth: the state blew up (found at step 1, day 1.000): "
                          "depth h = "),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("height error at day"), std::string::npos) << "no results after it";
}

// `gpgpu earth bench --ranks N --rank R` times one rank's share alone: it says which rank and
// how many cells it holds (its own third of level 4's 2,562 cells and 8 rings around them), and
// a rank outside the team is refused with the rule.
// --timeline writes the window's marks as CSV (host times only on llvmpipe); a window that
// ends before it starts is refused before the run.
TEST(EarthCli, WritesATimelineOfTheStepsAsked) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gpgpu-earth-timeline-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto csv = (dir / "steps.csv").string();
  const auto r = earth("--case 5 --level 3 --days 1 --no-pictures --timeline " + csv +
                       " --timeline-steps 2,5");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("timeline: " + csv + " (steps 2 to 5;"), std::string::npos) << r.output;
  std::ifstream in(csv);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "label,index,host_us,gpu_us");
  for (int s = 2; s <= 5; ++s)
    EXPECT_EQ(lines[s - 1].rfind(fmt::format("step,{},", s), 0), 0u) << lines[s - 1];
  const std::pair<std::string, std::string> refused[] = {
      {"5,2", "--timeline-steps needs FIRST,LAST with 0 <= FIRST <= LAST; got 5,2"},
      {"0,100000", "--timeline-steps spans at most 100000 steps; got 0,100000"}};
  for (const auto& [steps, message] : refused) {
    const auto bad = earth("--case 5 --level 3 --days 1 --no-pictures --timeline " + csv +
                           " --timeline-steps " + steps);
    EXPECT_EQ(bad.status, 1) << bad.output;
    EXPECT_NE(bad.output.find(message), std::string::npos) << bad.output;
  }
  std::filesystem::remove_all(dir);
}

TEST(EarthCli, BenchTimesOneRanksShare) {
  const auto r = earth("bench --levels 4 --case 5 --seconds 0.05 --ranks 3 --rank 1");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string said = "rank 1 of 3: ";
  const auto at = r.output.find(said);
  ASSERT_NE(at, std::string::npos) << r.output;
  const auto cells = std::stoul(r.output.substr(at + said.size()));
  EXPECT_GT(cells, 2562u / 3 + 1) << r.output;
  EXPECT_LT(cells, 2562u) << r.output;
  const auto bad = earth("bench --levels 2 --ranks 2 --rank 2");
  EXPECT_EQ(bad.status, 1) << bad.output;
  EXPECT_NE(bad.output.find("earth rehearsal: rank 2 of 2 ranks; give 0 <= rank < ranks"),
            std::string::npos)
      << bad.output;
  EXPECT_EQ(bad.output.find("device:"), std::string::npos) << "refused before it starts";
}
