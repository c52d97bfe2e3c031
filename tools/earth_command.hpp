// Pieces of `gpgpu earth` shared by its files: earth_command.cpp (the simulation),
// earth_tools.cpp (`earth grid`, `earth bench`, the saved-field files), earth_timeline.cpp
// (--timeline).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/earth/model.hpp"
#include "gpgpu/earth/team.hpp"
#include "gpgpu/timeline.hpp"
#include "text_file.hpp"
#include "timeline_file.hpp"

namespace gpgpu::cli {

// The processes a run of `gpgpu earth` spans: gpgpu's add_earth_command(app) gives one
// process (gpgpu::earth::one_process); gpgpu-mpi gives the MPI ranks.
using TeamMaker = std::function<std::unique_ptr<gpgpu::earth::Team>()>;
Command add_earth_command(CLI::App& app, TeamMaker make_team);

}  // namespace gpgpu::cli

namespace gpgpu::cli::earth {

// --grid spring|bisection and --no-recentre, into GridOptions.
gpgpu::earth::GridOptions grid_options(int level, const std::string& kind, bool recentre);

// A height field saved for comparing runs (`--save`, `--reference`): the grid that made it
// (level, kind, recentring), the case and day, and one float64 per cell.
struct SavedField {
  int level = 0;
  std::string grid_kind;
  bool recentre = true;
  int case_number = 0;
  double day = 0;
  std::vector<double> values;
};
void save_field(const std::filesystem::path& path, const SavedField& field);
SavedField load_field(const std::filesystem::path& path);

void write_json(const std::filesystem::path& path, const nlohmann::json& j);

// --timeline (earth_timeline.cpp, timeline_file.hpp): the model marks its steps and swaps.
std::unique_ptr<Timeline> start_timeline(const TimelineRequest& t, const Context& ctx,
                                         gpgpu::earth::Model& model);
void finish_timeline(const TimelineRequest& t, gpgpu::earth::Team& team, gpgpu::earth::Model& model,
                     Timeline& timeline);

void add_grid_subcommand(CLI::App& earth, std::function<int()>& chosen);
void add_bench_subcommand(CLI::App& earth, std::function<int()>& chosen);
void add_compare_subcommand(CLI::App& earth, std::function<int()>& chosen);
void add_partition_subcommand(CLI::App& earth, std::function<int()>& chosen);

}  // namespace gpgpu::cli::earth
