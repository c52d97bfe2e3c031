// The values of the variables (contents.hpp), and netcdf_contents (gpgpu/earth/netcdf.hpp).
#include "contents.hpp"

#include <numbers>
#include <utility>

#include <fmt/format.h>

#include "gpgpu/earth/netcdf.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth::detail {

using layout::Quantity;
using layout::Span;

namespace {

constexpr double degrees = 180.0 / std::numbers::pi;

std::vector<double> per_cell(const Grid& g, auto&& value) {
  std::vector<double> v(g.cell_count());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(i);
  return v;
}

std::vector<double> per_node(const Grid& g, auto&& value) {
  std::vector<double> v(g.triangle_count());
  for (std::size_t t = 0; t < v.size(); ++t) v[t] = value(g.corners[t]);
  return v;
}

// Six slots per cell: `slot(i, k)` for k below the cell's degree, -1 (the fill value) past it.
std::vector<int> per_slot(const Grid& g, auto&& slot) {
  std::vector<int> v(6 * g.cell_count(), -1);
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    for (int k = 0; k < g.degree[i]; ++k) v[6 * i + static_cast<std::size_t>(k)] = slot(i, k);
  }
  return v;
}

// The model's velocity is float32 (fields() widened it): narrowing gives it back exactly.
std::vector<float> component(const Fields& f, double Vec3::*axis) {
  std::vector<float> v(f.velocity.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(f.velocity[i].*axis);
  return v;
}

double lon_deg(const Vec3& p) {
  return degrees * longitude(p);
}
double lat_deg(const Vec3& p) {
  return degrees * latitude(p);
}

}  // namespace

Values static_values(Quantity q, const Grid& g, const CaseSetup& setup) {
  const double a2 = setup.planet.radius * setup.planet.radius;
  switch (q) {
    case Quantity::Topology:
      return std::vector<int>{0};
    case Quantity::NodeLongitude:
      return per_node(g, lon_deg);
    case Quantity::NodeLatitude:
      return per_node(g, lat_deg);
    case Quantity::FaceLongitude:
      return per_cell(g, [&](std::size_t i) { return lon_deg(g.centres[i]); });
    case Quantity::FaceLatitude:
      return per_cell(g, [&](std::size_t i) { return lat_deg(g.centres[i]); });
    case Quantity::FaceNodes:
      return per_slot(g, [&](std::size_t i, int k) { return g.cell_triangles[i][k]; });
    case Quantity::FaceLinks:
      return per_slot(g, [&](std::size_t i, int k) { return g.neighbours[i][k]; });
    case Quantity::FaceArea:
      return per_cell(g, [&](std::size_t i) { return a2 * g.areas[i]; });
    case Quantity::Surface:
      return initial_fields(g, setup).surface;
    default:
      break;
  }
  throw Error(fmt::format("NetCDF: variable {} is not static", layout::variable(q).name));
}

Values record_values(Quantity q, const Grid& g, const Fields& f,
                     std::span<const double> vorticity) {
  switch (q) {
    case Quantity::Height:
      return f.height;
    case Quantity::Vorticity:
      return std::vector<double>(vorticity.begin(), vorticity.end());
    case Quantity::VelocityX:
      return component(f, &Vec3::x);
    case Quantity::VelocityY:
      return component(f, &Vec3::y);
    case Quantity::VelocityZ:
      return component(f, &Vec3::z);
    case Quantity::Eastward:
    case Quantity::Northward: {
      std::vector<double> v(g.cell_count());
      for (std::size_t i = 0; i < v.size(); ++i) {
        const auto [east, north] = east_north(g.centres[i], f.velocity[i]);
        v[i] = q == Quantity::Eastward ? east : north;
      }
      return v;
    }
    default:
      break;
  }
  throw Error(
      fmt::format("NetCDF: variable {} is not a field of a record", layout::variable(q).name));
}

}  // namespace gpgpu::earth::detail

namespace gpgpu::earth {

using detail::layout::Span;

namespace {

std::vector<std::string> dimension_names(detail::layout::Span span) {
  namespace l = detail::layout;
  switch (span) {
    case Span::None:
      return {};
    case Span::Node:
      return {l::node_dimension};
    case Span::Face:
      return {l::face_dimension};
    case Span::FaceSlots:
      return {l::face_dimension, l::slot_dimension};
    case Span::Time:
      return {l::time_dimension};
    case Span::TimeFace:
      return {l::time_dimension, l::face_dimension};
  }
  return {};
}

std::vector<std::size_t> dimension_lengths(detail::layout::Span span, const Grid& g) {
  switch (span) {
    case Span::None:
      return {};
    case Span::Node:
      return {g.triangle_count()};
    case Span::Face:
      return {g.cell_count()};
    case Span::FaceSlots:
      return {g.cell_count(), 6};
    case Span::Time:
      return {1};
    case Span::TimeFace:
      return {1, g.cell_count()};
  }
  return {};
}

}  // namespace

NetcdfContents netcdf_contents(const Grid& grid, const CaseSetup& setup, double time,
                               const Fields& fields, std::span<const double> vorticity,
                               const NetcdfOptions& options) {
  const std::size_t n = grid.cell_count();
  if (fields.height.size() != n || fields.velocity.size() != n || vorticity.size() != n) {
    throw SizeMismatchError(
        fmt::format("netcdf_contents: the grid has {} cells; got {} heights, {} velocities and {} "
                    "vorticities",
                    n, fields.height.size(), fields.velocity.size(), vorticity.size()));
  }
  NetcdfContents c;
  for (const auto& v : detail::layout::variables()) {
    NetcdfVariable out;
    out.name = v.name;
    out.dimensions = dimension_names(v.span);
    out.shape = dimension_lengths(v.span, grid);
    if (v.span == Span::Time) {
      out.values = std::vector<double>{time + options.time_offset};
    } else if (v.span == Span::TimeFace) {
      out.values = detail::record_values(v.quantity, grid, fields, vorticity);
    } else {
      out.values = detail::static_values(v.quantity, grid, setup);
    }
    for (const auto& a : v.attributes) out.attributes.emplace_back(a.name, a.value);
    c.variables.push_back(std::move(out));
  }
  for (const auto& a : detail::layout::global_attributes(grid, setup, options)) {
    c.attributes.emplace_back(a.name, a.value);
  }
  return c;
}

}  // namespace gpgpu::earth
