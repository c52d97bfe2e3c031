// The float32 device tables of a subdomain (layout in model_kernels.hpp), built on the host.
#pragma once

#include <cstdint>
#include <vector>

#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/earth/partition.hpp"

namespace gpgpu::earth::detail {

// Per local cell of the subdomain: position for all of them; the per-slot tables and
// inv_area for the cells that may compute tendencies (all but the last ring: [0, m) with
// m = within(depth - 1), slot-major with stride m), neighbours as local indices. One rank's
// subdomain gives the whole grid's tables.
struct DeviceTables {
  std::vector<float> position;     // 4 per cell
  std::vector<std::int32_t> slot;  // 4 per (slot, cell)
  std::vector<std::int32_t> neighbour;
  std::vector<float> correction;  // c l d / A
  std::vector<float> laplace;     // l / (d A)
  std::vector<float> inv_area;    // 1 / (a A)
};

DeviceTables device_tables(const Grid& grid, const CaseSetup& setup, const Fields& fields,
                           double continuity_correction, const Subdomain& domain);

// The state vector (h - mean_depth, u) of the listed cells of fields, 4 floats per cell.
std::vector<float> pack_state(const Fields& fields, double mean_depth,
                              const std::vector<std::int32_t>& cells);
// The area-weighted mean depth.
double area_mean(const Grid& grid, const std::vector<double>& values);

}  // namespace gpgpu::earth::detail
