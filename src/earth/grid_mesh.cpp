// The icosahedron, its recursive refinement, spring dynamics and the Morton reordering.
#include "earth/grid_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>
#include <unordered_map>

namespace gpgpu::earth::detail {

namespace {

constexpr double pi = 3.14159265358979323846;

// Makes face (a, b, c) counter-clockwise seen from outside.
std::array<std::int32_t, 3> oriented(const std::vector<Vec3>& p, std::int32_t a, std::int32_t b,
                                     std::int32_t c) {
  if (triple(p[a] + p[b] + p[c], p[b] - p[a], p[c] - p[a]) < 0) return {a, c, b};
  return {a, b, c};
}

std::uint64_t edge_key(std::int32_t a, std::int32_t b) {
  const auto lo = static_cast<std::uint64_t>(std::min(a, b));
  const auto hi = static_cast<std::uint64_t>(std::max(a, b));
  return (hi << 32) | lo;
}

// Spreads the low 21 bits of v to every third bit.
std::uint64_t spread_bits(std::uint64_t v) {
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}

std::uint64_t morton_key(const Vec3& p) {
  auto q = [](double c) {
    const double t = std::clamp((c + 1.0) * 0.5, 0.0, 1.0);
    return static_cast<std::uint64_t>(t * 2097151.0);
  };
  return spread_bits(q(p.x)) | spread_bits(q(p.y)) << 1 | spread_bits(q(p.z)) << 2;
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
  return m;
}

Mesh subdivide(const Mesh& mesh) {
  Mesh out;
  out.points = mesh.points;
  out.points.reserve(mesh.points.size() + mesh.faces.size() * 3 / 2);
  out.faces.reserve(mesh.faces.size() * 4);
  std::unordered_map<std::uint64_t, std::int32_t> midpoints;
  midpoints.reserve(mesh.faces.size() * 3 / 2);
  auto midpoint = [&](std::int32_t a, std::int32_t b) {
    const auto [it, added] = midpoints.try_emplace(edge_key(a, b), 0);
    if (added) {
      it->second = static_cast<std::int32_t>(out.points.size());
      out.points.push_back(normalized(out.points[a] + out.points[b]));
    }
    return it->second;
  };
  for (const auto& [a, b, c] : mesh.faces) {
    const std::int32_t ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
    out.faces.push_back({a, ab, ca});
    out.faces.push_back({ab, b, bc});
    out.faces.push_back({ca, bc, c});
    out.faces.push_back({ab, bc, ca});
  }
  return out;
}

Adjacency adjacency(const Mesh& mesh) {
  Adjacency adj;
  adj.neighbours.assign(mesh.points.size(), {-1, -1, -1, -1, -1, -1});
  adj.degree.assign(mesh.points.size(), 0);
  auto add = [&](std::int32_t a, std::int32_t b) {
    auto& list = adj.neighbours[a];
    const auto end = list.begin() + adj.degree[a];
    if (std::find(list.begin(), end, b) != end) return;
    list[adj.degree[a]++] = b;
  };
  for (const auto& [a, b, c] : mesh.faces) {
    add(a, b), add(a, c), add(b, a), add(b, c), add(c, a), add(c, b);
  }
  return adj;
}

namespace {

// Runs body(begin, end) over [first, last) split across the machine's cores (one thread
// below `serial_below` items) and returns the largest value any part returned. std::thread
// rather than OpenMP, so that programs linking the static library need no OpenMP runtime.
template <class Body>
double parallel_max(std::size_t first, std::size_t last, std::size_t serial_below,
                    const Body& body) {
  const std::size_t count = last - first;
  const std::size_t threads =
      count < serial_below ? 1
                           : std::max<std::size_t>(
                                 1, std::min<std::size_t>(std::thread::hardware_concurrency(), 64));
  if (threads == 1) return body(first, last);
  std::vector<double> result(threads, 0.0);
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t b = first + count * t / threads, e = first + count * (t + 1) / threads;
    pool.emplace_back([&, t, b, e] { result[t] = body(b, e); });
  }
  for (auto& th : pool) th.join();
  return *std::max_element(result.begin(), result.end());
}

}  // namespace

int relax_springs(Mesh& mesh, double natural_length, double tolerance, int max_sweeps) {
  const Adjacency adj = adjacency(mesh);
  const std::size_t n = mesh.points.size();
  // Heavy-ball relaxation: velocity <- momentum * velocity + step * force. The damped
  // spring dynamics of Tomita et al. (2002) in iteration form; momentum makes the large
  // scales converge in O(2^level) sweeps instead of O(4^level).
  constexpr double step = 0.1, momentum = 0.9;
  constexpr std::size_t serial_below = 40000;
  // Springs are measured along chords (the same equilibrium as arcs of natural length
  // natural_length, to O(spacing^3), at a third of the cost of atan2).
  const double natural_chord = 2 * std::sin(0.5 * natural_length);
  std::vector<Vec3> velocity(n, Vec3{}), force(n, Vec3{});
  int sweep = 0;
  for (; sweep < max_sweeps; ++sweep) {
    const double largest = parallel_max(12, n, serial_below, [&](std::size_t b, std::size_t e) {
      double m = 0;
      for (std::size_t i = b; i < e; ++i) {
        const Vec3& p = mesh.points[i];
        Vec3 f{};
        for (int k = 0; k < adj.degree[i]; ++k) {
          const Vec3 d = mesh.points[adj.neighbours[i][k]] - p;
          const Vec3 t = tangent_part(d, p);
          f += t * ((norm(d) - natural_chord) / norm(t));
        }
        force[i] = f;
        m = std::max(m, norm(f));
      }
      return m;
    });
    const double moved = parallel_max(12, n, serial_below, [&](std::size_t b, std::size_t e) {
      double m = 0;
      for (std::size_t i = b; i < e; ++i) {
        const Vec3 v = tangent_part(velocity[i] * momentum + force[i] * step, mesh.points[i]);
        const Vec3 p = normalized(mesh.points[i] + v);
        velocity[i] = v;
        m = std::max(m, norm(p - mesh.points[i]));
        mesh.points[i] = p;
      }
      return m;
    });
    if (moved < tolerance * natural_length && largest < tolerance * natural_length) break;
  }
  return sweep;
}

void reorder_by_morton(Mesh& mesh) {
  const std::size_t n = mesh.points.size();
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = morton_key(mesh.points[i]);
  std::vector<std::int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return keys[a] < keys[b]; });
  std::vector<std::int32_t> new_index(n);
  std::vector<Vec3> points(n);
  for (std::size_t k = 0; k < n; ++k) {
    new_index[order[k]] = static_cast<std::int32_t>(k);
    points[k] = mesh.points[order[k]];
  }
  mesh.points = std::move(points);
  for (auto& f : mesh.faces) {
    for (auto& v : f) v = new_index[v];
  }
  std::vector<std::uint64_t> face_keys(mesh.faces.size());
  for (std::size_t t = 0; t < mesh.faces.size(); ++t) {
    const auto& [a, b, c] = mesh.faces[t];
    face_keys[t] = morton_key(normalized(mesh.points[a] + mesh.points[b] + mesh.points[c]));
  }
  std::vector<std::size_t> face_order(mesh.faces.size());
  std::iota(face_order.begin(), face_order.end(), std::size_t{0});
  std::stable_sort(face_order.begin(), face_order.end(),
                   [&](auto a, auto b) { return face_keys[a] < face_keys[b]; });
  std::vector<std::array<std::int32_t, 3>> faces(mesh.faces.size());
  for (std::size_t k = 0; k < faces.size(); ++k) faces[k] = mesh.faces[face_order[k]];
  mesh.faces = std::move(faces);
}

}  // namespace gpgpu::earth::detail
