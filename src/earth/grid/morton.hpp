// Internal: the space-filling-curve order of the finished mesh (grid.hpp, "Layout").
#pragma once

#include "earth/grid/mesh.hpp"

namespace gpgpu::earth::detail {

// Reorders the points along a Morton curve (21 bits per coordinate) and the faces by their
// centroids' Morton keys; both sorts are stable, so equal keys keep their order. Drops the
// twins (the finished mesh needs none).
void reorder_by_morton(Mesh& mesh);

}  // namespace gpgpu::earth::detail
