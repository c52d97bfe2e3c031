// read_netcdf_state (gpgpu/earth/netcdf.hpp): a time record of a file NetcdfWriter wrote,
// after checking that the file's grid and case are the caller's.
#include <cmath>
#include <numbers>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/earth/netcdf.hpp"
#include "gpgpu/error.hpp"
#include "layout.hpp"
#include "nc_file.hpp"

namespace gpgpu::earth {

namespace fs = std::filesystem;
using detail::NcFile;
namespace layout = detail::layout;
using layout::Quantity;

namespace {

constexpr double radians = std::numbers::pi / 180.0;

std::string name_of(Quantity q) {
  return layout::variable(q).name;
}

// The values of a variable of `expected` shape, as doubles (or floats).
template <class T>
std::vector<T> read_whole(const NcFile& file, Quantity q,
                          const std::vector<std::size_t>& expected) {
  const int id = file.find_variable(name_of(q));
  if (file.variable_shape(id) != expected) {
    throw FormatError(fmt::format("{}: variable {} does not have the shape the grid implies",
                                  file.path().string(), name_of(q)));
  }
  std::size_t size = 1;
  for (const auto e : expected) size *= e;
  std::vector<T> v(size);
  if constexpr (std::is_same_v<T, double>) {
    file.check(nc_get_var_double(file.id(), id, v.data()), "cannot read " + name_of(q));
  } else {
    file.check(nc_get_var_float(file.id(), id, v.data()), "cannot read " + name_of(q));
  }
  return v;
}

template <class T>
std::vector<T> read_record(const NcFile& file, Quantity q, std::size_t record, std::size_t cells) {
  const int id = file.find_variable(name_of(q));
  const auto shape = file.variable_shape(id);
  if (shape.size() != 2 || shape[1] != cells || shape[0] <= record) {
    throw FormatError(fmt::format("{}: variable {} does not hold record {} of {} cells",
                                  file.path().string(), name_of(q), record, cells));
  }
  const std::size_t start[2] = {record, 0}, count[2] = {1, cells};
  std::vector<T> v(cells);
  if constexpr (std::is_same_v<T, double>) {
    file.check(nc_get_vara_double(file.id(), id, start, count, v.data()),
               "cannot read " + name_of(q));
  } else {
    file.check(nc_get_vara_float(file.id(), id, start, count, v.data()),
               "cannot read " + name_of(q));
  }
  return v;
}

// The grid the file's attributes describe against `grid`: level, kind, cell count.
void check_grid_attributes(const NcFile& file, const Grid& grid) {
  const std::string what = file.path().string();
  const auto level = file.number_attribute(NC_GLOBAL, layout::level_attribute);
  if (level != grid.level) {
    throw ArgumentError(
        fmt::format("{} holds fields of a level-{} grid; this run's grid is level {}", what, level,
                    grid.level));
  }
  const auto cells = file.dimension_length(layout::face_dimension);
  if (cells != grid.cell_count()) {
    throw ArgumentError(
        fmt::format("{} holds {} cells; this run's grid has {}", what, cells, grid.cell_count()));
  }
  const auto kind = file.text_attribute(NC_GLOBAL, layout::optimization_attribute);
  const auto volume = file.text_attribute(NC_GLOBAL, layout::control_volume_attribute);
  const bool recentred = file.number_attribute(NC_GLOBAL, layout::recentred_attribute) != 0;
  const auto expected_kind = layout::optimization_name(grid.options.optimization);
  const auto expected_volume = layout::control_volume_name(grid.options.control_volume);
  if (kind != expected_kind || volume != expected_volume || recentred != grid.options.recentre) {
    throw ArgumentError(fmt::format(
        "{} holds fields of a {} grid with {} control volumes ({}); this run's grid is {} with {} "
        "control volumes ({})",
        what, kind, volume, recentred ? "recentred" : "not recentred", expected_kind,
        expected_volume, grid.options.recentre ? "recentred" : "not recentred"));
  }
}

// Every cell centre of the file within a small fraction of the grid's spacing of the grid's.
void check_centres(const NcFile& file, const Grid& grid) {
  const std::size_t n = grid.cell_count();
  const auto lon = read_whole<double>(file, Quantity::FaceLongitude, {n});
  const auto lat = read_whole<double>(file, Quantity::FaceLatitude, {n});
  const double tolerance = 1e-3 * min_spacing(grid);
  for (std::size_t i = 0; i < n; ++i) {
    const double off =
        arc_length(from_lat_lon(radians * lat[i], radians * lon[i]), grid.centres[i]);
    if (!(off <= tolerance)) {
      throw ArgumentError(fmt::format(
          "{}: cell {}'s centre ({:.6f} N, {:.6f} E) is {:.3g} of the grid's smallest spacing "
          "away from this run's grid's; it was written on another grid",
          file.path().string(), i, lat[i], lon[i], off / min_spacing(grid)));
    }
  }
}

void check_case(const NcFile& file, const CaseSetup& setup) {
  const auto number = file.number_attribute(NC_GLOBAL, layout::case_attribute);
  const auto alpha = file.number_attribute(NC_GLOBAL, layout::alpha_attribute);
  if (number != setup.number || alpha != setup.alpha) {
    throw ArgumentError(fmt::format("{} holds case {} (alpha {}); this run is case {} (alpha {})",
                                    file.path().string(), number, alpha, setup.number,
                                    setup.alpha));
  }
}

}  // namespace

NetcdfState read_netcdf_state(const fs::path& path, const Grid& grid, const CaseSetup& setup,
                              long record) {
  const NcFile file = NcFile::open(path);
  const auto conventions = file.text_attribute(NC_GLOBAL, "Conventions");
  if (conventions.find("UGRID") == std::string::npos) {
    throw FormatError(
        fmt::format("{}: its Conventions are '{}', not a UGRID file gpgpu earth wrote",
                    path.string(), conventions));
  }
  check_grid_attributes(file, grid);
  check_case(file, setup);
  check_centres(file, grid);
  NetcdfState s;
  s.records = file.dimension_length(layout::time_dimension);
  const long count = static_cast<long>(s.records);
  const long index = record < 0 ? count + record : record;
  if (index < 0 || index >= count) {
    throw ArgumentError(
        fmt::format("{} holds {} time records (0..{}, or -1..-{} from the end); "
                    "record {} was asked for",
                    path.string(), count, count - 1, count, record));
  }
  s.record = static_cast<std::size_t>(index);
  const std::size_t n = grid.cell_count();
  const auto times = read_whole<double>(file, Quantity::Time, {s.records});
  s.time = times[s.record];
  s.fields.height = read_record<double>(file, Quantity::Height, s.record, n);
  const auto vx = read_record<float>(file, Quantity::VelocityX, s.record, n);
  const auto vy = read_record<float>(file, Quantity::VelocityY, s.record, n);
  const auto vz = read_record<float>(file, Quantity::VelocityZ, s.record, n);
  s.fields.velocity.resize(n);
  for (std::size_t i = 0; i < n; ++i) s.fields.velocity[i] = {vx[i], vy[i], vz[i]};
  s.fields.surface = read_whole<double>(file, Quantity::Surface, {n});
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(s.fields.height[i]) || !std::isfinite(vx[i]) || !std::isfinite(vy[i]) ||
        !std::isfinite(vz[i])) {
      throw FormatError(fmt::format("{}: record {} holds a non-finite value at cell {}",
                                    path.string(), s.record, i));
    }
  }
  return s;
}

}  // namespace gpgpu::earth
