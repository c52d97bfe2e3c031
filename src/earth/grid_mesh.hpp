// The grid's triangle mesh while it is being made: points and counter-clockwise faces,
// refined level by level and relaxed by spring dynamics (grid_mesh.cpp), before the
// control volumes are built from it (grid_build.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "gpgpu/earth/vec3.hpp"

namespace gpgpu::earth::detail {

struct Mesh {
  std::vector<Vec3> points;
  std::vector<std::array<std::int32_t, 3>> faces;  // counter-clockwise seen from outside
};

// The regular icosahedron with corners at the poles; points 0..11 are its corners.
Mesh icosahedron();

// Splits every face into four through the normalised edge midpoints. Existing points keep
// their indices (so the twelve corners stay 0..11).
Mesh subdivide(const Mesh& mesh);

// Each point's neighbours, unordered (degree 5 or 6; slot 5 is -1 for a pentagon).
struct Adjacency {
  std::vector<std::array<std::int32_t, 6>> neighbours;
  std::vector<std::uint8_t> degree;
};
Adjacency adjacency(const Mesh& mesh);

// Relaxes the points (all but 0..11) towards the equilibrium of springs of natural length
// natural_length along every edge. Returns the sweeps taken.
int relax_springs(Mesh& mesh, double natural_length, double tolerance, int max_sweeps);

// Reorders points along a Morton curve and faces by their centroids' Morton keys.
void reorder_by_morton(Mesh& mesh);

}  // namespace gpgpu::earth::detail
