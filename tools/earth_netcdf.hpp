// `gpgpu earth --netcdf FILE.nc [--netcdf-every HOURS]` and `--initial FILE.nc
// [--initial-record N]`: the run's fields written as NetCDF (gpgpu/earth/netcdf.hpp), and a
// run started from such a file. earth_netcdf.cpp does it through gpgpu::earth_netcdf;
// earth_netcdf_unavailable.cpp, in builds without libnetcdf, refuses both options by name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "gpgpu/earth/model.hpp"
#include "gpgpu/earth/team.hpp"

namespace gpgpu::cli::earth {

struct NetcdfRequest {
  std::string file;          // --netcdf
  double every_hours = 24;   // --netcdf-every: hours between records (0: start and end only)
  std::string initial;       // --initial
  long initial_record = -1;  // --initial-record (negative: from the end)
  std::string command_line;  // for the file's `history` attribute
};

// Registers the four options on `app`.
void add_netcdf_options(CLI::App& app, NetcdfRequest& request);
// Refuses a negative or non-finite --netcdf-every, and either option in a build without
// libnetcdf, before anything runs.
void check_netcdf_request(const NetcdfRequest& request);

// The records of one run: written by rank 0; every rank takes part in gathering the fields.
class NetcdfOutput {
 public:
  virtual ~NetcdfOutput() = default;
  // The days (from the run's start) at which the run must stop to write a record.
  virtual std::vector<double> stops(double run_days) const = 0;
  // Writes a record when `day` is one of stops() or the start (collective).
  virtual void at(double day, const gpgpu::earth::Model& model) = 0;
  // Finishes the file (rank 0) and returns its path ("" on other ranks).
  virtual std::string finish() = 0;
};

// The output --netcdf asks for (null without it). `time_offset`: the start's time (s) when the
// run began from a file. Collective: rank 0 makes the file (a folder that cannot be written
// stops every rank with its message) and the first record (the start) is written here.
std::unique_ptr<NetcdfOutput> start_netcdf(const NetcdfRequest& request,
                                           const gpgpu::earth::Model& model,
                                           gpgpu::earth::Team& team, double time_offset);

// With --initial: sets the model's fields from the file's record (every rank reads the file)
// and returns that record's time (s); without it returns 0. Throws the reader's errors, which
// name what does not match (grid level, kind, cells, coordinates, case).
double start_from_netcdf(const NetcdfRequest& request, gpgpu::earth::Model& model);

}  // namespace gpgpu::cli::earth
