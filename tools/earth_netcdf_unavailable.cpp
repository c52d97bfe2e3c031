// `gpgpu earth --netcdf` and `--initial` (earth_netcdf.hpp) in a build without libnetcdf: the
// options exist, and using either is refused by name before anything runs.
#include <cmath>

#include <fmt/format.h>

#include "earth_netcdf.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::cli::earth {

namespace ge = gpgpu::earth;

void add_netcdf_options(CLI::App& app, NetcdfRequest& request) {
  app.add_option("--netcdf", request.file, "Write the fields as NetCDF (not in this build)");
  app.add_option("--netcdf-every", request.every_hours, "Hours between NetCDF records");
  app.add_option("--initial", request.initial, "Start from a NetCDF file (not in this build)");
  app.add_option("--initial-record", request.initial_record, "Which record of --initial");
}

void check_netcdf_request(const NetcdfRequest& request) {
  if (!request.file.empty() || !request.initial.empty()) {
    throw UnsupportedError(
        "earth: this gpgpu was built without libnetcdf, so --netcdf and --initial are "
        "unavailable (Debian: apt-get install libnetcdf-dev, then rebuild)");
  }
}

std::unique_ptr<NetcdfOutput> start_netcdf(const NetcdfRequest&, const ge::Model&, ge::Team&,
                                           double) {
  return nullptr;
}

double start_from_netcdf(const NetcdfRequest&, ge::Model&) {
  return 0;
}

}  // namespace gpgpu::cli::earth
