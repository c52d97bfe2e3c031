// Internal: the values of every variable of layout.hpp — the mesh and static fields from the
// grid and the case, a record's fields from the model's — computed once, here, for the writer
// and for netcdf_contents() (what the Python module's to_xarray builds its Dataset from).
#pragma once

#include <span>
#include <variant>
#include <vector>

#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/grid.hpp"
#include "layout.hpp"

namespace gpgpu::earth::detail {

using Values = std::variant<std::vector<int>, std::vector<float>, std::vector<double>>;

// A variable without the time dimension (the mesh, the cell areas, the topography; the
// topology variable's single dummy value).
Values static_values(layout::Quantity quantity, const Grid& grid, const CaseSetup& setup);
// A variable of one record, from the model's fields and vorticity (one value per cell).
Values record_values(layout::Quantity quantity, const Grid& grid, const Fields& fields,
                     std::span<const double> vorticity);

}  // namespace gpgpu::earth::detail
