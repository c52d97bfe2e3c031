// Internal: the grid's triangle mesh while it is being made (grid/build.cpp): the
// icosahedron refined level by level, with each face's neighbours across its edges, so that
// a refinement needs no edge lookup table and splits into independent pieces of work.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "gpgpu/earth/vec3.hpp"

namespace gpgpu::earth::detail {

using Triangle = std::array<std::int32_t, 3>;
using Ring = std::array<std::int32_t, 6>;

// Slot s of face f is its edge from corner s to corner s + 1 (mod 3). An edge is a slot of
// two faces, running opposite ways; `twins[f][s]` names the other as 4 * face + slot.
struct Mesh {
  std::vector<Vec3> points;
  std::vector<Triangle> faces;  // counter-clockwise seen from outside
  std::vector<Triangle> twins;
};

// The regular icosahedron with corners at the poles; points 0..11 are its corners.
Mesh icosahedron();

// Splits every face into four through the normalised edge midpoints: face f becomes faces
// 4f .. 4f+3 = (a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca). Existing points keep
// their indices (the twelve corners stay 0..11); the midpoints follow, numbered in the
// order the faces first reach them (face by face; in a face, ab, bc, ca).
Mesh subdivide(const Mesh& mesh);

// Each point's neighbours in counter-clockwise order (seen from outside) and the faces
// between them: faces[k] is (point, neighbour k, neighbour k+1). A point starts at the
// lowest-numbered face it belongs to, so the rings depend on the faces alone. Slots past
// `degree` (5 or 6) hold -1. Throws Error when a point is not surrounded by 5 or 6 faces
// that close around it (a damaged mesh).
struct Rings {
  std::vector<Ring> neighbours, faces;
  std::vector<std::uint8_t> degree;
};
Rings rings(std::size_t point_count, const std::vector<Triangle>& faces);

}  // namespace gpgpu::earth::detail
