// Internal: the one description of the files gpgpu::earth writes as NetCDF — dimensions,
// variables, their types and attributes. The writer defines the file from it and the reader
// looks its variables up by it; docs/earth-netcdf.md documents the same table.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include <netcdf.h>

#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/earth/netcdf.hpp"

namespace gpgpu::earth::detail::layout {

// The dimensions' names.
inline const std::string node_dimension = "nmesh_node";            // control-volume corners
inline const std::string face_dimension = "nmesh_face";            // cells
inline const std::string slot_dimension = "nmesh_face_max_nodes";  // 6: a hexagon's corners
inline const std::string time_dimension = "time";                  // unlimited

// Which dimensions a variable spans.
enum class Span { None, Node, Face, FaceSlots, Time, TimeFace };

// What a variable holds (the writer fills each from the grid, the case or the fields).
enum class Quantity {
  Topology,
  NodeLongitude,
  NodeLatitude,
  FaceLongitude,
  FaceLatitude,
  FaceNodes,
  FaceLinks,
  FaceArea,
  Surface,
  Time,
  Height,
  Eastward,
  Northward,
  Vorticity,
  VelocityX,
  VelocityY,
  VelocityZ,
};

using AttributeValue = std::variant<std::string, int, double>;
struct Attribute {
  std::string name;
  AttributeValue value;
};

struct Variable {
  std::string name;
  nc_type type;
  Span span;
  Quantity quantity;
  std::vector<Attribute> attributes;
};

// Every variable of a file, in the order they are defined.
const std::vector<Variable>& variables();
// The variable holding `quantity`.
const Variable& variable(Quantity quantity);
// The global attributes of a file for this grid and case.
std::vector<Attribute> global_attributes(const Grid& grid, const CaseSetup& setup,
                                         const NetcdfOptions& options);

// The names of the global attributes the reader checks a file against.
inline const std::string case_attribute = "gpgpu_case";
inline const std::string alpha_attribute = "gpgpu_alpha";
inline const std::string level_attribute = "gpgpu_grid_level";
inline const std::string optimization_attribute = "gpgpu_grid_optimization";
inline const std::string control_volume_attribute = "gpgpu_grid_control_volume";
inline const std::string recentred_attribute = "gpgpu_grid_recentred";

// The names the attributes above give the grid's options.
std::string optimization_name(GridOptimization optimization);
std::string control_volume_name(ControlVolume control_volume);

}  // namespace gpgpu::earth::detail::layout
