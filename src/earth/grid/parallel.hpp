// Internal: the grid build's worker threads. The build runs thousands of short parallel
// loops (two a spring sweep, ~400 sweeps a level); threads started for each loop cost more
// than the loop at level 6 (measured on 32-core VMs: 16 times the cores of a 2-core machine
// gave a 4x slowdown there), so these threads live as long as the process.
//
//   detail::parallel_for(n, [&](std::size_t begin, std::size_t end) { ... });
//   double m = detail::parallel_max(n, [&](std::size_t b, std::size_t e) { return ...; });
//
// A loop is cut into one contiguous part per thread, and part t always runs on thread t,
// so a thread works on the same cells every sweep (its caches stay warm). Loops shorter
// than `serial_below` items run on the calling thread alone. The pool serves one loop at a
// time: a second caller waits, and a loop started inside a loop's body runs serially.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <vector>

namespace gpgpu::earth::detail {

// Threads of the pool, the caller included: GPGPU_EARTH_THREADS when set (e.g. several
// ranks on one machine), else the machine's hardware threads; at most 64.
std::size_t worker_count();

// Runs part(t) for t in [0, parts), part t on thread t % worker_count(); returns when all
// have run. The first exception a part throws is rethrown here.
void run_parts(std::size_t parts, const std::function<void(std::size_t)>& part);

// The parts of [0, n): how many a loop of n items gets.
inline std::size_t parts_for(std::size_t n, std::size_t serial_below) {
  return n < serial_below ? 1 : std::min(worker_count(), std::max<std::size_t>(n / 1024, 1));
}

// body(begin, end) over [0, n) in parts.
template <class Body>
void parallel_for(std::size_t n, const Body& body, std::size_t serial_below = 8192) {
  const std::size_t parts = parts_for(n, serial_below);
  if (parts == 1) return body(std::size_t{0}, n);
  run_parts(parts, [&](std::size_t t) { body(n * t / parts, n * (t + 1) / parts); });
}

// The largest of what body(begin, end) returns over the parts of [0, n): a double, or a
// std::array of doubles (largest element by element). Zero for n == 0.
inline double largest(double a, double b) {
  return std::max(a, b);
}
template <std::size_t N>
std::array<double, N> largest(std::array<double, N> a, const std::array<double, N>& b) {
  for (std::size_t k = 0; k < N; ++k) a[k] = std::max(a[k], b[k]);
  return a;
}

template <class Body>
auto parallel_max(std::size_t n, const Body& body, std::size_t serial_below = 8192) {
  using Result = decltype(body(std::size_t{0}, std::size_t{0}));
  const std::size_t parts = parts_for(n, serial_below);
  if (parts == 1) return n == 0 ? Result{} : body(std::size_t{0}, n);
  std::vector<Result> result(parts, Result{});
  run_parts(parts, [&](std::size_t t) { result[t] = body(n * t / parts, n * (t + 1) / parts); });
  Result all = result[0];
  for (const auto& r : result) all = largest(all, r);
  return all;
}

}  // namespace gpgpu::earth::detail
