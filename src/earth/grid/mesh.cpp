// The icosahedron, its refinement through the faces' twins, and the points' rings.
#include "earth/grid/mesh.hpp"

#include <atomic>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "earth/grid/parallel.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth::detail {

namespace {

constexpr double pi = 3.14159265358979323846;

// Makes face (a, b, c) counter-clockwise seen from outside.
Triangle oriented(const std::vector<Vec3>& p, std::int32_t a, std::int32_t b, std::int32_t c) {
  if (triple(p[a] + p[b] + p[c], p[b] - p[a], p[c] - p[a]) < 0) return {a, c, b};
  return {a, b, c};
}

// Twins by search: for the 20 faces of the icosahedron only.
std::vector<Triangle> twins_by_search(const std::vector<Triangle>& faces) {
  std::vector<Triangle> twins(faces.size(), {-1, -1, -1});
  for (std::size_t f = 0; f < faces.size(); ++f) {
    for (int s = 0; s < 3; ++s) {
      for (std::size_t g = 0; g < faces.size(); ++g) {
        for (int t = 0; t < 3; ++t) {
          if (faces[g][t] == faces[f][(s + 1) % 3] && faces[g][(t + 1) % 3] == faces[f][s])
            twins[f][s] = static_cast<std::int32_t>(4 * g + t);
        }
      }
    }
  }
  return twins;
}

// Where the halves of a face's edge go when it is split: slot s's first half (from corner s
// to the midpoint) and second half are these slots of these children.
struct ChildSlot {
  int child, slot;
};
constexpr ChildSlot first_half[3] = {{0, 0}, {1, 1}, {2, 2}};
constexpr ChildSlot second_half[3] = {{1, 0}, {2, 1}, {0, 2}};

std::int32_t packed(std::size_t face, ChildSlot c) {
  return static_cast<std::int32_t>(4 * (4 * face + c.child) + c.slot);
}

// The children's faces and twins of face f, whose edge midpoints are m[0..2].
void split_face(const Mesh& mesh, std::size_t f, const Triangle& m, Mesh& out) {
  const auto [a, b, c] = mesh.faces[f];
  Triangle* faces = &out.faces[4 * f];
  Triangle* twins = &out.twins[4 * f];
  faces[0] = {a, m[0], m[2]};
  faces[1] = {m[0], b, m[1]};
  faces[2] = {m[2], m[1], c};
  faces[3] = {m[0], m[1], m[2]};
  for (int s = 0; s < 3; ++s) {
    // Across the parent's edge, the first half meets the neighbour's second half.
    const auto g = static_cast<std::size_t>(mesh.twins[f][s] >> 2);
    const int t = mesh.twins[f][s] & 3;
    twins[first_half[s].child][first_half[s].slot] = packed(g, second_half[t]);
    twins[second_half[s].child][second_half[s].slot] = packed(g, first_half[t]);
  }
  // The middle child's edges meet the corner children's inner edges.
  twins[0][1] = packed(f, {3, 2});
  twins[3][2] = packed(f, {0, 1});
  twins[1][2] = packed(f, {3, 0});
  twins[3][0] = packed(f, {1, 2});
  twins[2][0] = packed(f, {3, 1});
  twins[3][1] = packed(f, {2, 0});
}

bool owns_midpoint(const Mesh& mesh, std::size_t f, int s) {
  return static_cast<std::size_t>(mesh.twins[f][s] >> 2) > f;
}

// first[f] = midpoints owned by faces before f; returns the total.
std::size_t number_midpoints(const Mesh& mesh, std::vector<std::size_t>& first) {
  const std::size_t n = mesh.faces.size();
  first.assign(n, 0);
  const std::size_t parts = parts_for(n, 1 << 14);
  std::vector<std::size_t> part_total(parts, 0);
  run_parts(parts, [&](std::size_t t) {
    std::size_t sum = 0;
    for (std::size_t f = n * t / parts; f < n * (t + 1) / parts; ++f) {
      first[f] = sum;
      for (int s = 0; s < 3; ++s) sum += owns_midpoint(mesh, f, s) ? 1 : 0;
    }
    part_total[t] = sum;
  });
  std::size_t total = 0;
  for (auto& p : part_total) total += std::exchange(p, total);
  run_parts(parts, [&](std::size_t t) {
    for (std::size_t f = n * t / parts; f < n * (t + 1) / parts; ++f) first[f] += part_total[t];
  });
  return total;
}

}  // namespace

Mesh icosahedron() {
  Mesh m;
  const double z = 1.0 / std::sqrt(5.0), r = 2.0 / std::sqrt(5.0);
  m.points.push_back({0, 0, 1});
  m.points.push_back({0, 0, -1});
  for (int k = 0; k < 5; ++k) {  // upper ring: points 2..6
    const double lon = 2 * pi * k / 5;
    m.points.push_back({r * std::cos(lon), r * std::sin(lon), z});
  }
  for (int k = 0; k < 5; ++k) {  // lower ring: points 7..11, offset by 36 degrees
    const double lon = 2 * pi * (k + 0.5) / 5;
    m.points.push_back({r * std::cos(lon), r * std::sin(lon), -z});
  }
  for (std::int32_t k = 0; k < 5; ++k) {
    const std::int32_t u0 = 2 + k, u1 = 2 + (k + 1) % 5, l0 = 7 + k, l1 = 7 + (k + 1) % 5;
    m.faces.push_back(oriented(m.points, 0, u0, u1));
    m.faces.push_back(oriented(m.points, u0, l0, u1));
    m.faces.push_back(oriented(m.points, u1, l0, l1));
    m.faces.push_back(oriented(m.points, 1, l1, l0));
  }
  m.twins = twins_by_search(m.faces);
  return m;
}

Mesh subdivide(const Mesh& mesh) {
  const std::size_t faces = mesh.faces.size(), old_points = mesh.points.size();
  std::vector<std::size_t> first;
  const std::size_t added = number_midpoints(mesh, first);
  Mesh out;
  out.points.resize(old_points + added);
  out.faces.resize(4 * faces);
  out.twins.resize(4 * faces);
  std::vector<Triangle> mid(faces);
  // The midpoints each face owns: the edge's face of lower number makes the point.
  parallel_for(faces, [&](std::size_t begin, std::size_t end) {
    for (std::size_t f = begin; f < end; ++f) {
      std::size_t next = old_points + first[f];
      for (int s = 0; s < 3; ++s) {
        if (!owns_midpoint(mesh, f, s)) continue;
        const Vec3& a = mesh.points[mesh.faces[f][s]];
        const Vec3& b = mesh.points[mesh.faces[f][(s + 1) % 3]];
        out.points[next] = normalized(a + b);
        mid[f][s] = static_cast<std::int32_t>(next++);
      }
    }
  });
  parallel_for(old_points, [&](std::size_t begin, std::size_t end) {
    std::copy(mesh.points.begin() + begin, mesh.points.begin() + end, out.points.begin() + begin);
  });
  parallel_for(faces, [&](std::size_t begin, std::size_t end) {
    for (std::size_t f = begin; f < end; ++f) {
      Triangle m = mid[f];
      for (int s = 0; s < 3; ++s) {
        if (!owns_midpoint(mesh, f, s)) m[s] = mid[mesh.twins[f][s] >> 2][mesh.twins[f][s] & 3];
      }
      split_face(mesh, f, m, out);
    }
  });
  return out;
}

namespace {

// Point i's ring from its incident faces (4 * face + corner, any order): start at the
// lowest-numbered face; in face (i, q, r) r follows q, and the next face is (i, r, ...).
void walk_ring(std::size_t i, const std::vector<Triangle>& faces, const std::int32_t* incident,
               int count, Rings& out) {
  if (count != 5 && count != 6) {
    throw Error(fmt::format("earth grid: point {} has {} triangles (5 or 6 expected)", i, count));
  }
  int start = 0;
  for (int k = 1; k < count; ++k) start = incident[k] < incident[start] ? k : start;
  std::int32_t face = incident[start] >> 2;
  int corner = incident[start] & 3;
  for (int k = 0; k < count; ++k) {
    const Triangle& t = faces[face];
    out.neighbours[i][k] = t[(corner + 1) % 3];
    out.faces[i][k] = face;
    const std::int32_t next = t[(corner + 2) % 3];
    int found = -1;
    for (int q = 0; q < count && found < 0; ++q) {
      const Triangle& u = faces[incident[q] >> 2];
      if (u[((incident[q] & 3) + 1) % 3] == next) found = q;
    }
    if (found < 0 || (k + 1 == count) != (found == start)) {
      throw Error(fmt::format("earth grid: the triangles around point {} do not close", i));
    }
    face = incident[found] >> 2;
    corner = incident[found] & 3;
  }
  out.degree[i] = static_cast<std::uint8_t>(count);
}

}  // namespace

Rings rings(std::size_t point_count, const std::vector<Triangle>& faces) {
  std::vector<Ring> incident(point_count, {-1, -1, -1, -1, -1, -1});
  std::vector<std::uint32_t> count(point_count, 0);
  std::atomic<bool> out_of_range{false};
  parallel_for(faces.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t f = begin; f < end; ++f) {
      for (int c = 0; c < 3; ++c) {
        const std::int32_t p = faces[f][c];
        if (p < 0 || static_cast<std::size_t>(p) >= point_count) {
          out_of_range = true;
          continue;
        }
        const std::uint32_t slot = std::atomic_ref(count[p]).fetch_add(1);
        if (slot < 6) incident[p][slot] = static_cast<std::int32_t>(4 * f + c);
      }
    }
  });
  if (out_of_range) throw Error("earth grid: a triangle names a point that does not exist");
  Rings out;
  out.neighbours.assign(point_count, {-1, -1, -1, -1, -1, -1});
  out.faces.assign(point_count, {-1, -1, -1, -1, -1, -1});
  out.degree.assign(point_count, 0);
  parallel_for(point_count, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      walk_ring(i, faces, incident[i].data(),
                static_cast<int>(std::min<std::uint32_t>(count[i], 7)), out);
    }
  });
  return out;
}

}  // namespace gpgpu::earth::detail
