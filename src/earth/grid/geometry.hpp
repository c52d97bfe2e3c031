// Internal: a Grid from its points and triangles — the rings (neighbours and dual
// triangles, mesh.hpp) and the control volumes' geometry, in parallel on the CPU in
// float64. The same code serves a fresh build and a grid read back from disk, so a grid
// loaded from a file is bit for bit the grid that was built.
#pragma once

#include "earth/grid/mesh.hpp"
#include "gpgpu/earth/grid.hpp"

namespace gpgpu::earth::detail {

// Fills neighbours, degree and cell_triangles from centres and triangles.
void assign_rings(Grid& grid);

// Fills corners, corner_weights, areas, edge lengths and normals and neighbour distances
// from centres, triangles and the rings.
void build_geometry(Grid& grid);

// Moves every centre to its control volume's centroid ("gravitational centring") and
// rebuilds the geometry.
void recentre(Grid& grid);

}  // namespace gpgpu::earth::detail
