// The float32 device tables of a grid (layout in model_kernels.hpp), built on the host.
#pragma once

#include <cstdint>
#include <vector>

#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/grid.hpp"

namespace gpgpu::earth::detail {

struct DeviceTables {
  std::vector<float> position;     // 4 per cell
  std::vector<std::int32_t> slot;  // 4 per (slot, cell)
  std::vector<std::int32_t> neighbour;
  std::vector<float> correction;  // c l d / A
  std::vector<float> laplace;     // l / (d A)
  std::vector<float> inv_area;    // 1 / (a A)
};

DeviceTables device_tables(const Grid& grid, const CaseSetup& setup, const Fields& fields,
                           double continuity_correction);

// The state vector (h - mean_depth, u) of fields, 4 floats per cell.
std::vector<float> pack_state(const Fields& fields, double mean_depth);
// The area-weighted mean depth.
double area_mean(const Grid& grid, const std::vector<double>& values);

}  // namespace gpgpu::earth::detail
