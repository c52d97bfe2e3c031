// Morton order by a parallel least-significant-digit radix sort: linear in the number of
// points (std::stable_sort of 84 million face keys took seconds on one core).
#include "earth/grid/morton.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>

#include "earth/grid/parallel.hpp"

namespace gpgpu::earth::detail {

namespace {

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

constexpr int digit_bits = 8, digits = 1 << digit_bits;

// One stable pass on digit `shift`: each part counts its digits, then scatters its items to
// the offsets of (digit, part) in that order, which keeps equal digits in input order.
void radix_pass(std::vector<std::uint64_t>& keys, std::vector<std::uint32_t>& order,
                std::vector<std::uint64_t>& keys_out, std::vector<std::uint32_t>& order_out,
                int shift) {
  const std::size_t n = keys.size(), parts = parts_for(n, 1 << 15);
  std::vector<std::size_t> offset(parts * digits, 0);
  run_parts(parts, [&](std::size_t t) {
    std::size_t* count = &offset[t * digits];
    for (std::size_t i = n * t / parts; i < n * (t + 1) / parts; ++i)
      ++count[(keys[i] >> shift) & (digits - 1)];
  });
  std::size_t total = 0;
  for (int d = 0; d < digits; ++d) {
    for (std::size_t t = 0; t < parts; ++t) total += std::exchange(offset[t * digits + d], total);
  }
  run_parts(parts, [&](std::size_t t) {
    std::size_t* next = &offset[t * digits];
    for (std::size_t i = n * t / parts; i < n * (t + 1) / parts; ++i) {
      const std::size_t at = next[(keys[i] >> shift) & (digits - 1)]++;
      keys_out[at] = keys[i];
      order_out[at] = order[i];
    }
  });
  keys.swap(keys_out);
  order.swap(order_out);
}

// The permutation that sorts `keys` stably (keys are consumed).
std::vector<std::uint32_t> stable_order(std::vector<std::uint64_t> keys) {
  const std::size_t n = keys.size();
  std::vector<std::uint32_t> order(n), order_out(n);
  std::iota(order.begin(), order.end(), 0u);
  std::vector<std::uint64_t> keys_out(n);
  std::uint64_t used = 0;  // the bits any key sets: passes over none are skipped
  for (auto k : keys) used |= k;
  for (int shift = 0; shift < 64; shift += digit_bits) {
    if ((used >> shift & (digits - 1)) != 0) radix_pass(keys, order, keys_out, order_out, shift);
  }
  return order;
}

template <class T>
std::vector<T> gather(const std::vector<T>& from, const std::vector<std::uint32_t>& order) {
  std::vector<T> out(from.size());
  parallel_for(from.size(), [&](std::size_t b, std::size_t e) {
    for (std::size_t k = b; k < e; ++k) out[k] = from[order[k]];
  });
  return out;
}

}  // namespace

void reorder_by_morton(Mesh& mesh) {
  const std::size_t n = mesh.points.size(), f = mesh.faces.size();
  std::vector<std::uint64_t> keys(n);
  parallel_for(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) keys[i] = morton_key(mesh.points[i]);
  });
  const std::vector<std::uint32_t> order = stable_order(std::move(keys));
  std::vector<std::int32_t> new_index(n);
  parallel_for(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t k = b; k < e; ++k) new_index[order[k]] = static_cast<std::int32_t>(k);
  });
  mesh.points = gather(mesh.points, order);
  std::vector<std::uint64_t> face_keys(f);
  parallel_for(f, [&](std::size_t b, std::size_t e) {
    for (std::size_t t = b; t < e; ++t) {
      auto& face = mesh.faces[t];
      for (auto& v : face) v = new_index[v];
      face_keys[t] = morton_key(
          normalized(mesh.points[face[0]] + mesh.points[face[1]] + mesh.points[face[2]]));
    }
  });
  mesh.faces = gather(mesh.faces, stable_order(std::move(face_keys)));
  mesh.twins.clear();
}

}  // namespace gpgpu::earth::detail
