// Internal: the words for grid options, shared by cache keys and messages.
#pragma once

#include "gpgpu/earth/grid.hpp"

namespace gpgpu::earth::detail {

inline const char* placement_name(GridOptimization o) {
  return o == GridOptimization::Spring ? "spring" : "bisection";
}
inline const char* control_volume_name(ControlVolume c) {
  return c == ControlVolume::Centroid ? "centroid" : "Voronoi";
}

}  // namespace gpgpu::earth::detail
