// The variables and attributes of the earth model's NetCDF files (layout.hpp): UGRID-1.0 for
// the mesh, CF-1.8 for the rest.
#include "layout.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::earth::detail::layout {

namespace {

// The attributes every field on the cells carries: UGRID's mesh and location, and CF's
// auxiliary coordinates and cell measure.
std::vector<Attribute> on_faces(std::vector<Attribute> attributes) {
  attributes.push_back({"mesh", "mesh"});
  attributes.push_back({"location", "face"});
  attributes.push_back({"coordinates", "mesh_face_y mesh_face_x"});
  attributes.push_back({"cell_measures", "area: mesh_face_area"});
  return attributes;
}

std::vector<Variable> make_variables() {
  const std::string time_units = "seconds since 2000-01-01 00:00:00";
  return {
      {"mesh",
       NC_INT,
       Span::None,
       Quantity::Topology,
       {{"cf_role", "mesh_topology"},
        {"long_name", "geodesic icosahedral grid: hexagonal cells and twelve pentagons"},
        {"topology_dimension", 2},
        {"node_coordinates", "mesh_node_x mesh_node_y"},
        {"face_node_connectivity", "mesh_face_nodes"},
        {"face_face_connectivity", "mesh_face_links"},
        {"face_dimension", face_dimension},
        {"face_coordinates", "mesh_face_x mesh_face_y"}}},
      {"mesh_node_x",
       NC_DOUBLE,
       Span::Node,
       Quantity::NodeLongitude,
       {{"standard_name", "longitude"},
        {"long_name", "longitude of the cells' corners (mesh nodes)"},
        {"units", "degrees_east"}}},
      {"mesh_node_y",
       NC_DOUBLE,
       Span::Node,
       Quantity::NodeLatitude,
       {{"standard_name", "latitude"},
        {"long_name", "latitude of the cells' corners (mesh nodes)"},
        {"units", "degrees_north"}}},
      {"mesh_face_x",
       NC_DOUBLE,
       Span::Face,
       Quantity::FaceLongitude,
       {{"standard_name", "longitude"},
        {"long_name", "longitude of the cell centres"},
        {"units", "degrees_east"}}},
      {"mesh_face_y",
       NC_DOUBLE,
       Span::Face,
       Quantity::FaceLatitude,
       {{"standard_name", "latitude"},
        {"long_name", "latitude of the cell centres"},
        {"units", "degrees_north"}}},
      {"mesh_face_nodes",
       NC_INT,
       Span::FaceSlots,
       Quantity::FaceNodes,
       {{"cf_role", "face_node_connectivity"},
        {"long_name", "corners of each cell, counter-clockwise (a pentagon's sixth is fill)"},
        {"start_index", 0},
        {"_FillValue", -1}}},
      {"mesh_face_links",
       NC_INT,
       Span::FaceSlots,
       Quantity::FaceLinks,
       {{"cf_role", "face_face_connectivity"},
        {"long_name",
         "neighbours of each cell, counter-clockwise: neighbour k shares the edge from corner "
         "k-1 to corner k"},
        {"start_index", 0},
        {"_FillValue", -1}}},
      {"mesh_face_area",
       NC_DOUBLE,
       Span::Face,
       Quantity::FaceArea,
       {{"standard_name", "cell_area"},
        {"long_name", "area of each cell on the sphere of the planet's radius"},
        {"units", "m2"},
        {"mesh", "mesh"},
        {"location", "face"},
        {"coordinates", "mesh_face_y mesh_face_x"}}},
      {"surface_altitude", NC_DOUBLE, Span::Face, Quantity::Surface,
       on_faces({{"standard_name", "surface_altitude"},
                 {"long_name", "bottom topography h_s (case 5's mountain; zero otherwise)"},
                 {"units", "m"}})},
      {"time",
       NC_DOUBLE,
       Span::Time,
       Quantity::Time,
       {{"standard_name", "time"},
        {"long_name", "time since the start of the test case (the date is nominal)"},
        {"units", time_units},
        {"calendar", "standard"},
        {"axis", "T"}}},
      {"h", NC_DOUBLE, Span::TimeFace, Quantity::Height,
       on_faces({{"long_name", "fluid depth h (the free surface is at h + surface_altitude)"},
                 {"units", "m"}})},
      {"u", NC_DOUBLE, Span::TimeFace, Quantity::Eastward,
       on_faces({{"standard_name", "eastward_wind"},
                 {"long_name", "eastward velocity"},
                 {"units", "m s-1"}})},
      {"v", NC_DOUBLE, Span::TimeFace, Quantity::Northward,
       on_faces({{"standard_name", "northward_wind"},
                 {"long_name", "northward velocity"},
                 {"units", "m s-1"}})},
      {"vorticity", NC_DOUBLE, Span::TimeFace, Quantity::Vorticity,
       on_faces({{"standard_name", "atmosphere_relative_vorticity"},
                 {"long_name", "relative vorticity (the model's curl over each cell)"},
                 {"units", "s-1"}})},
      {"velocity_x", NC_FLOAT, Span::TimeFace, Quantity::VelocityX,
       on_faces({{"long_name",
                  "velocity, geocentric x component (towards latitude 0, longitude 0): the "
                  "model's float32 state"},
                 {"units", "m s-1"}})},
      {"velocity_y", NC_FLOAT, Span::TimeFace, Quantity::VelocityY,
       on_faces({{"long_name",
                  "velocity, geocentric y component (towards latitude 0, longitude 90E): the "
                  "model's float32 state"},
                 {"units", "m s-1"}})},
      {"velocity_z", NC_FLOAT, Span::TimeFace, Quantity::VelocityZ,
       on_faces({{"long_name",
                  "velocity, geocentric z component (towards the north pole): the model's "
                  "float32 state"},
                 {"units", "m s-1"}})},
  };
}

}  // namespace

const std::vector<Variable>& variables() {
  static const std::vector<Variable> all = make_variables();
  return all;
}

const Variable& variable(Quantity quantity) {
  const auto& all = variables();
  return *std::find_if(all.begin(), all.end(),
                       [&](const Variable& v) { return v.quantity == quantity; });
}

std::string optimization_name(GridOptimization optimization) {
  return optimization == GridOptimization::Spring ? "spring" : "bisection";
}

std::string control_volume_name(ControlVolume control_volume) {
  return control_volume == ControlVolume::Centroid ? "centroid" : "voronoi";
}

std::vector<Attribute> global_attributes(const Grid& grid, const CaseSetup& setup,
                                         const NetcdfOptions& options) {
  std::vector<Attribute> a{
      {"Conventions", "CF-1.8 UGRID-1.0"},
      {"title", fmt::format("gpgpu earth: {}, grid level {} ({} cells)", setup.title(), grid.level,
                            grid.cell_count())},
      {"source",
       "gpgpu earth: shallow-water model on a geodesic icosahedral grid (GPU compute shaders, "
       "float32 state)"},
      {"references",
       "D. L. Williamson, J. B. Drake, J. J. Hack, R. Jakob, P. N. Swarztrauber, A standard "
       "test set for numerical approximations to the shallow water equations in spherical "
       "geometry, J. Comput. Phys. 102 (1992) 211-224"},
      {case_attribute, setup.number},
      {alpha_attribute, setup.alpha},
      {level_attribute, grid.level},
      {optimization_attribute, optimization_name(grid.options.optimization)},
      {control_volume_attribute, control_volume_name(grid.options.control_volume)},
      {recentred_attribute, grid.options.recentre ? 1 : 0},
      {"planet_radius", setup.planet.radius},
      {"planet_rotation_rate", setup.planet.omega},
      {"gravity", setup.planet.gravity},
  };
  if (!options.history.empty()) a.push_back({"history", options.history});
  return a;
}

}  // namespace gpgpu::earth::detail::layout
