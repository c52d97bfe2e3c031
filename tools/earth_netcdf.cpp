// `gpgpu earth --netcdf` and `--initial` (earth_netcdf.hpp) through gpgpu::earth_netcdf.
#include "earth_netcdf.hpp"

#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "gpgpu/earth/netcdf.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::cli::earth {

namespace ge = gpgpu::earth;

namespace {

constexpr double day_s = 86400.0;

class FileOutput final : public NetcdfOutput {
 public:
  FileOutput(const NetcdfRequest& request, const ge::Model& model, ge::Team& team,
             double time_offset)
      : every_days_(request.every_hours / 24) {
    std::string error;
    try {
      if (team.rank() == 0) {
        ge::NetcdfOptions options;
        options.time_offset = time_offset;
        options.history = request.command_line;
        writer_.emplace(request.file, model.grid(), model.setup(), options);
      }
    } catch (const Error& e) {
      error = e.what();
    }
    error = team.first_message(error);  // every rank stops, none waits for rank 0
    if (!error.empty()) throw ge::TeamError(error);
    at(0, model);
  }

  std::vector<double> stops(double run_days) const override {
    std::vector<double> days;
    if (every_days_ > 0) {
      for (double d = every_days_; d < run_days - 1e-9; d += every_days_) days.push_back(d);
    }
    days.push_back(run_days);
    last_day_ = run_days;
    return days;
  }

  void at(double day, const ge::Model& model) override {
    if (!due(day)) return;
    const auto fields = model.fields();        // collective: every rank
    const auto vorticity = model.vorticity();  // collective
    if (writer_) writer_->write(model.time(), fields, vorticity);
  }

  std::string finish() override {
    if (!writer_) return "";
    writer_->close();
    return writer_->path().string();
  }

 private:
  // The start, every `every` days, and the end.
  bool due(double day) const {
    if (day == 0 || (last_day_ && std::abs(day - *last_day_) < 1e-9)) return true;
    if (every_days_ <= 0) return false;
    const double k = std::round(day / every_days_);
    return k >= 1 && std::abs(day - k * every_days_) < 1e-9;
  }

  double every_days_;
  mutable std::optional<double> last_day_;
  std::optional<ge::NetcdfWriter> writer_;
};

}  // namespace

void add_netcdf_options(CLI::App& app, NetcdfRequest& request) {
  app.add_option("--netcdf", request.file,
                 "Write the fields as NetCDF (UGRID mesh, CF attributes) to this file");
  app.add_option("--netcdf-every", request.every_hours,
                 "Hours between NetCDF records (0: the start and the end only)")
      ->capture_default_str();
  app.add_option(
      "--initial", request.initial,
      "Start from the fields of a NetCDF file gpgpu earth wrote (same case, level, grid)");
  app.add_option("--initial-record", request.initial_record,
                 "Which record of --initial: 0, 1, ... from the first, -1 the last")
      ->capture_default_str();
}

void check_netcdf_request(const NetcdfRequest& request) {
  if (!(std::isfinite(request.every_hours) && request.every_hours >= 0)) {
    throw ArgumentError(fmt::format(
        "earth: --netcdf-every must be a number of hours >= 0 (0: start and end only); got {}",
        request.every_hours));
  }
}

std::unique_ptr<NetcdfOutput> start_netcdf(const NetcdfRequest& request, const ge::Model& model,
                                           ge::Team& team, double time_offset) {
  if (request.file.empty()) return nullptr;
  return std::make_unique<FileOutput>(request, model, team, time_offset);
}

double start_from_netcdf(const NetcdfRequest& request, ge::Model& model) {
  if (request.initial.empty()) return 0;
  const auto state =
      ge::read_netcdf_state(request.initial, model.grid(), model.setup(), request.initial_record);
  model.set_fields(state.fields);
  return state.time;
}

}  // namespace gpgpu::cli::earth
